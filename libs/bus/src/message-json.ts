const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * A message's JSON, or why it is not JSON. Never throws: a subscription callback that throws
 * stops the connection's reader in nats.js, so one bad message would leave a service deaf.
 */
export function parseMessageJson(data: Uint8Array): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(decoder.decode(data)) };
  } catch (e) {
    return { ok: false, reason: `invalid JSON: ${(e as Error).message}` };
  }
}
