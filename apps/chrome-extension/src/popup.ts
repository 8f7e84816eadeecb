/**
 * The popup: connect (opens the extension API's connect page, which returns the token to
 * connected.html), the wallet address, a recall search box with results, logout, and the
 * service URL setting.
 * @module
 */
import { ApiCallError, logout, me, recall } from "./api.js";
import { newConnectState, serviceUrl, setServiceUrl, storedToken } from "./settings.js";

function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

const root = byId("app");
const who = byId("who");
const signedOut = byId("signed-out");
const signedIn = byId("signed-in");
const results = byId<HTMLOListElement>("results");
const summary = byId("summary");
const errorLine = byId("error");
const serviceInput = byId<HTMLInputElement>("service-url");

/** Shows the signed-in or signed-out view. */
function showView(view: "signed-in" | "signed-out"): void {
  root.dataset.state = view;
  signedIn.hidden = view !== "signed-in";
  signedOut.hidden = view !== "signed-out";
}

/** Shows an error line (or clears it). */
function showError(error: unknown): void {
  errorLine.textContent = error === null ? "" : (error as Error).message;
}

/** Renders the current state from storage and `GET /me`. */
async function refresh(): Promise<void> {
  serviceInput.value = await serviceUrl();
  if (!(await storedToken())) {
    who.textContent = "";
    showView("signed-out");
    return;
  }
  try {
    const caller = await me();
    who.textContent = caller.publicKey;
    who.title = `token valid until ${caller.tokenExpiresAt}`;
    showView("signed-in");
  } catch (error) {
    if (error instanceof ApiCallError && error.status === 401) {
      showView("signed-out");
    } else {
      showError(error);
    }
  }
}

byId("connect").addEventListener("click", async () => {
  const state = await newConnectState();
  const url = new URL("/connect", await serviceUrl());
  url.searchParams.set("redirect_uri", chrome.runtime.getURL("connected.html"));
  url.searchParams.set("state", state);
  await chrome.tabs.create({ url: url.toString() });
});

byId<HTMLFormElement>("search").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError(null);
  const query = byId<HTMLInputElement>("query").value;
  try {
    const found = await recall(query);
    summary.textContent = `${found.items.length} found among ${found.scanned} memories`;
    results.replaceChildren(
      ...found.items.map((memory) => {
        const item = document.createElement("li");
        item.dataset.id = memory.id;
        const text = document.createElement("div");
        text.className = "content";
        text.textContent = memory.content;
        const meta = document.createElement("div");
        meta.className = "meta";
        const title = typeof memory.metadata.title === "string" ? memory.metadata.title : "";
        meta.textContent = `${new Date(memory.createdAt).toLocaleString()}${title ? ` · ${title}` : ""}${memory.anchored ? " · anchored" : ""}`;
        item.append(text, meta);
        return item;
      }),
    );
  } catch (error) {
    showError(error);
    await refresh();
  }
});

byId("logout").addEventListener("click", async () => {
  showError(null);
  try {
    await logout();
  } catch (error) {
    showError(error);
  }
  results.replaceChildren();
  summary.textContent = "";
  await refresh();
});

byId<HTMLFormElement>("settings-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    await setServiceUrl(serviceInput.value);
    showError(null);
    await refresh();
  } catch (error) {
    showError(error);
  }
});

chrome.storage.onChanged.addListener((changes) => {
  if ("token" in changes) {
    void refresh();
  }
});

void refresh();
