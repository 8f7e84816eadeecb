/**
 * The connect page's script (browser; bundled by esbuild, see ../src/connect-page.ts): finds the
 * wallet through the Wallet Standard, asks the extension API for a challenge, has the wallet sign
 * it (`solana:signIn` when the wallet has it, else `solana:signMessage`), exchanges the signature
 * for an extension token and hands it to the extension page in the redirect's fragment.
 * States (on `#app[data-state]`): searching, no-wallet, choose-wallet, signing, refused, expired,
 * error, success.
 * @module
 */
import type {
  SolanaSignInFeature,
  SolanaSignMessageFeature,
} from "@solana/wallet-standard-features";
import { base58Encode, parseSignInMessage } from "@verifiable-memory/siws-message";
import { getWallets } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import type { StandardConnectFeature } from "@wallet-standard/features";

/** How long the page waits for a wallet to register before it says none was found. */
const WALLET_WAIT_MS = 1500;

type State =
  | "searching"
  | "no-wallet"
  | "choose-wallet"
  | "signing"
  | "refused"
  | "expired"
  | "error"
  | "success";

/** A wallet that can connect and sign a sign-in message one way or the other. */
interface SigningWallet {
  readonly wallet: Wallet;
  readonly connect: StandardConnectFeature["standard:connect"]["connect"];
  readonly signIn?: SolanaSignInFeature["solana:signIn"]["signIn"];
  readonly signMessage?: SolanaSignMessageFeature["solana:signMessage"]["signMessage"];
}

/** A refusal the user can retry from. */
class Retryable extends Error {
  constructor(
    readonly state: "refused" | "expired",
    message: string,
  ) {
    super(message);
  }
}

const params = new URLSearchParams(location.search);
const redirectUri = params.get("redirect_uri") ?? "";
const state = params.get("state") ?? undefined;

const root = element("app");
const statusText = element("status");
const walletList = element("wallets");
const retryButton = element("retry") as HTMLButtonElement;

function element(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) {
    throw new Error(`the page lacks #${id}`);
  }
  return found;
}

/** Shows `next` with its text; buttons are shown only where they can act. */
function show(next: State, text: string): void {
  root.dataset.state = next;
  statusText.textContent = text;
  retryButton.hidden = !(next === "refused" || next === "expired" || next === "error");
  walletList.hidden = next !== "choose-wallet";
}

/** The wallet's features this page uses, or null when it cannot sign in with a Solana key. */
function signingWallet(wallet: Wallet): SigningWallet | null {
  const features = wallet.features as Partial<
    StandardConnectFeature & SolanaSignInFeature & SolanaSignMessageFeature
  >;
  const connect = features["standard:connect"]?.connect;
  const signIn = features["solana:signIn"]?.signIn;
  const signMessage = features["solana:signMessage"]?.signMessage;
  if (!connect || !(signIn || signMessage)) {
    return null;
  }
  return {
    wallet,
    connect,
    ...(signIn ? { signIn } : {}),
    ...(signMessage ? { signMessage } : {}),
  };
}

/** The wallets registered now, or within {@link WALLET_WAIT_MS}. */
async function findWallets(): Promise<SigningWallet[]> {
  const registry = getWallets();
  const usable = () =>
    registry.get().flatMap((w) => {
      const s = signingWallet(w);
      return s ? [s] : [];
    });
  if (usable().length > 0) {
    return usable();
  }
  return new Promise((resolve) => {
    const off = registry.on("register", () => {
      if (usable().length > 0) {
        off();
        clearTimeout(timer);
        resolve(usable());
      }
    });
    const timer = setTimeout(() => {
      off();
      resolve(usable());
    }, WALLET_WAIT_MS);
  });
}

/** POSTs JSON to the extension API (same origin) and returns the parsed answer or throws. */
async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await res.json().catch(() => ({}))) as T & {
    error?: { code: string; message: string };
  };
  if (!res.ok) {
    const code = answer.error?.code ?? "error";
    if (code === "challenge_expired") {
      throw new Retryable("expired", "The sign-in request expired. Try again.");
    }
    throw new Error(answer.error?.message ?? `The service answered HTTP ${res.status}.`);
  }
  return answer;
}

/** Runs `sign`; a wallet's refusal becomes a retryable "refused". */
async function walletStep<T>(sign: () => Promise<T>): Promise<T> {
  try {
    return await sign();
  } catch (error) {
    throw new Retryable("refused", `The wallet did not sign: ${(error as Error).message}`);
  }
}

/** The whole flow with one wallet. */
async function connectWith(chosen: SigningWallet): Promise<void> {
  show("signing", `Approve the sign-in in ${chosen.wallet.name}…`);
  const account: WalletAccount | undefined =
    chosen.wallet.accounts[0] ?? (await walletStep(() => chosen.connect())).accounts[0];
  if (!account) {
    throw new Retryable("refused", "The wallet shared no account.");
  }
  const publicKey = base58Encode(Uint8Array.from(account.publicKey));
  const challenge = await post<{ message: string }>("/connect/challenge", {
    publicKey,
    redirectUri,
  });
  let message: string;
  let signature: Uint8Array;
  if (chosen.signIn) {
    const fields = parseSignInMessage(challenge.message);
    const signIn = chosen.signIn;
    const [output] = await walletStep(() => signIn({ ...fields }));
    if (!output) {
      throw new Retryable("refused", "The wallet returned no signature.");
    }
    message = new TextDecoder().decode(output.signedMessage);
    signature = Uint8Array.from(output.signature);
  } else {
    const encoded = new TextEncoder().encode(challenge.message);
    const signMessage = chosen.signMessage as NonNullable<SigningWallet["signMessage"]>;
    const [output] = await walletStep(() => signMessage({ account, message: encoded }));
    if (!output) {
      throw new Retryable("refused", "The wallet returned no signature.");
    }
    message = challenge.message;
    signature = Uint8Array.from(output.signature);
  }
  const connected = await post<{ redirectTo: string }>("/connect/verify", {
    publicKey,
    message,
    signature: base58Encode(signature),
    redirectUri,
    ...(state === undefined ? {} : { state }),
  });
  show("success", "Connected. Returning to the extension…");
  location.replace(connected.redirectTo);
}

/** Runs the flow with `chosen`, showing any failure. */
async function attempt(chosen: SigningWallet): Promise<void> {
  try {
    await connectWith(chosen);
  } catch (error) {
    if (error instanceof Retryable) {
      show(error.state, error.message);
    } else {
      show("error", (error as Error).message);
    }
  }
}

/** Finds the wallets and starts the flow (or lets the user choose). */
async function start(): Promise<void> {
  show("searching", "Looking for a Solana wallet in this browser…");
  const wallets = await findWallets();
  if (wallets.length === 0) {
    show(
      "no-wallet",
      "No Solana wallet was found. Install or enable a wallet extension, then reload this page.",
    );
    return;
  }
  const only = wallets.length === 1 ? wallets[0] : undefined;
  if (only) {
    retryButton.onclick = () => void attempt(only);
    await attempt(only);
    return;
  }
  walletList.replaceChildren(
    ...wallets.map((w) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = w.wallet.name;
      button.onclick = () => {
        retryButton.onclick = () => void attempt(w);
        void attempt(w);
      };
      return button;
    }),
  );
  show("choose-wallet", "Choose the wallet to connect:");
}

void start();
