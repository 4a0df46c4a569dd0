export {
  StreamTokenSigner,
  streamTokenClaimsSchema,
  redactAccessToken,
  STREAM_TOKEN_PREFIX,
  STREAM_TOKEN_PARAMETER,
  MIN_STREAM_TOKEN_SECRET_LENGTH,
  checkStreamTokenSecret,
} from './stream-token';
export type { StreamTokenClaims, MintedStreamToken, StreamTokenSignerOptions } from './stream-token';
