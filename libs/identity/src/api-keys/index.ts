export { generateApiKey, parseApiKey, hashSecret, secretMatches, API_KEY_PREFIX, API_KEY_ID_PATTERN } from './api-key-format';
export type { NewApiKey } from './api-key-format';
export { ApiKeyVerifier } from './api-key-verifier';
export type { StoredApiKey, ApiKeyVerifierOptions } from './api-key-verifier';
