/**
 * `connected.html`: where the connect page redirects with `#token=…&state=…`. The token is kept
 * only when `state` is the one this extension stored before opening the connect page; the
 * fragment is removed from the address bar and history at once.
 * @module
 */
import { claimConnectState, storeToken } from "./settings.js";

const root = document.getElementById("app") as HTMLElement;
const status = document.getElementById("status") as HTMLElement;

/** Reads the fragment, drops it from the address bar, and keeps the token if the state is ours. */
async function finish(): Promise<void> {
  const fragment = new URLSearchParams(location.hash.slice(1));
  history.replaceState(null, "", location.pathname);
  const token = fragment.get("token");
  const state = fragment.get("state");
  if (!token || !(await claimConnectState(state))) {
    root.dataset.state = "refused";
    status.textContent =
      "This connection was not started from this extension; nothing was kept. Connect again from the popup.";
    return;
  }
  await storeToken({ token, expiresAt: null });
  root.dataset.state = "connected";
  status.textContent = "Connected. You can close this tab and use the extension's popup.";
}

void finish();
