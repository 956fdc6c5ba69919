// Checks against the merchant's own data, shared by links and saved-card charges: the terminal
// (2016), the currencies it accepts (2011), the theme (2010).
import type { Database } from "../db/connect.ts";
import { findTerminal, findTheme, type Terminal } from "../db/merchants-repository.ts";
import { AppError } from "../domain/errors.ts";

/** The merchant's terminal with this identifier, if it accepts the currency. */
export async function terminalAccepting(
  db: Database,
  merchantId: string,
  terminalIdentifier: string,
  currency: string,
): Promise<Terminal & { processorType: string }> {
  const terminal = await findTerminal(db, merchantId, terminalIdentifier);
  if (!terminal) {
    throw new AppError("TerminalNotFound", `terminalIdentifier "${terminalIdentifier}" is not one of your terminals.`).at(
      "terminalIdentifier",
    );
  }
  if (terminal.currencies !== null && !terminal.currencies.includes(currency)) {
    throw new AppError(
      "CurrencyNotAccepted",
      `terminal ${terminal.terminalIdentifier} does not accept ${currency}; it accepts ${terminal.currencies.join(", ")}.`,
    ).at("currency");
  }
  return terminal;
}

export async function checkTheme(db: Database, merchantId: string, themeKey: string | null): Promise<void> {
  if (themeKey !== null && !(await findTheme(db, merchantId, themeKey))) {
    throw new AppError("ThemeNotFound", `themeKey "${themeKey}" is not one of your themes.`).at("themeKey");
  }
}
