// The secret key every test server and worker shares, so a worker can read what a server stored.
import { SecretKeyring } from "../../src/security/keyring.ts";

export const TEST_SECRET_KEY = "7e3a1c9b5d2f4e6a8b0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6f708";
export const testKeyring = () => new SecretKeyring(TEST_SECRET_KEY);
