// Debian's Chromium, driven by playwright-core (never a downloaded browser build), with the flags
// a headless run in a container needs; and the git-ignored folder the browser tests save
// screenshots to, for a person to look at.
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOTS = fileURLToPath(new URL("../../.tmp/screenshots/", import.meta.url));

/** A describe() option: skip, saying why, where Chromium is not installed. */
export const skipWithoutChromium = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;

export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
