/**
 * What the console runs in a browser, without the interpreter: the hash later model calls name
 * earlier messages by, and the check of a person's answer the gateway makes. Every module of the
 * engine is browser-safe (no Node APIs, see eslint.config.mjs); this entry only keeps the bundle small.
 */
export { messageHash } from './hashing/message-hash';
export { checkHumanAnswer } from './executors/human-answer';
export type { AnswerCheck } from './executors/human-answer';
export { namedCapabilities } from './definition/named-capabilities';
export type { NamedCapability } from './definition/named-capabilities';
