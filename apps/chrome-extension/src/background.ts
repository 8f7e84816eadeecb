/**
 * The extension's service worker: the context-menu entry "Remember selection", which stores the
 * selected text with the page's URL and title as metadata, and shows the outcome on the badge.
 * @module
 */
import { ApiCallError, remember } from "./api.js";

const MENU_ID = "remember-selection";

/** What a context-menu click gives the handler. */
export interface SelectionClick {
  readonly selectionText?: string | undefined;
  readonly pageUrl?: string | undefined;
}

const DEFAULT_TITLE = "Verifiable Memory";

/** The badge text and colour, and the icon's tooltip, for a moment after a click. */
async function flashBadge(text: string, color: string, title: string): Promise<void> {
  await chrome.action.setBadgeBackgroundColor({ color });
  await chrome.action.setBadgeText({ text });
  await chrome.action.setTitle({ title: `${DEFAULT_TITLE}: ${title}` });
  setTimeout(() => {
    void chrome.action.setBadgeText({ text: "" });
    void chrome.action.setTitle({ title: DEFAULT_TITLE });
  }, 4000);
}

/** The tab a click came from, as much of it as the handler uses. */
export interface ClickedTab {
  readonly id?: number | undefined;
  readonly title?: string | undefined;
  readonly url?: string | undefined;
}

/**
 * The clicked tab's title. The extension asks only for `activeTab`, which the click itself grants
 * for that tab; should the event's tab object come without the title, it is read again with
 * `chrome.tabs.get` under that grant. Undefined when neither has it.
 */
async function tabTitle(tab: ClickedTab | undefined): Promise<string | undefined> {
  if (tab?.title || tab?.id === undefined || tab.id < 0) {
    return tab?.title;
  }
  try {
    return (await chrome.tabs.get(tab.id)).title;
  } catch {
    return undefined;
  }
}

/**
 * Remembers the selection of a context-menu click: `content` = the selected text, `metadata` =
 * `{ url, title }` of the page. Resolves to the stored memory's id, or null (nothing selected,
 * not connected, refused), with the badge saying which.
 */
export async function rememberSelection(
  info: SelectionClick,
  tab: ClickedTab | undefined,
): Promise<string | null> {
  const content = info.selectionText?.trim() ?? "";
  if (content === "") {
    return null;
  }
  const metadata: Record<string, string> = {};
  const url = info.pageUrl ?? tab?.url;
  if (url) {
    metadata.url = url;
  }
  const title = await tabTitle(tab);
  if (title) {
    metadata.title = title;
  }
  try {
    const created = await remember(content, metadata);
    await flashBadge("✓", "#1e8449", "remembered");
    return created.id;
  } catch (error) {
    const notConnected = error instanceof ApiCallError && error.status === 401;
    await flashBadge(
      notConnected ? "!" : "✗",
      "#c0392b",
      notConnected
        ? "not connected; connect from this popup"
        : `not remembered: ${(error as Error).message}`,
    );
    return null;
  }
}

chrome.runtime.onInstalled.addListener(() => {
  chrome.contextMenus.create({
    id: MENU_ID,
    title: "Remember selection",
    contexts: ["selection"],
  });
});

chrome.contextMenus.onClicked.addListener((info, tab) => {
  if (info.menuItemId === MENU_ID) {
    void rememberSelection(info, tab);
  }
});

// The click handler, reachable from the worker's console and from tests (a native context menu
// cannot be clicked by automation).
(globalThis as { rememberSelection?: typeof rememberSelection }).rememberSelection =
  rememberSelection;
