import { performance } from 'node:perf_hooks';
import { SecretMasker } from '@spindle/telemetry';
import { median } from './stats';

export interface MaskingCost {
  eventBytes: number;
  /** Median µs per event: serializing it (what every append already does), and masking the JSON text. */
  serializeUs: number;
  maskUs: number;
  /** The same with two operator patterns (RE2) configured. */
  maskWithPatternsUs: number;
  /** An event that holds one secret: parsed, masked string by string and serialized again. */
  maskHitUs: number;
}

/**
 * What secret masking costs an append, in process: the run log writer serializes each event and
 * masks the JSON text before it publishes. Measured on `model.completed`-shaped events of 1 KiB
 * and 32 KiB of answer text, against serializing the same event, in batches of 50 per sample.
 */
export function measureMaskingCost(sizes = [1_024, 32_768], samples = 300): MaskingCost[] {
  const plain = new SecretMasker();
  const withPatterns = new SecretMasker({ patterns: ['acme_[0-9a-f]{32}', 'corp-token-[A-Za-z0-9]{24}'] });
  return sizes.map((size) => {
    const event = eventWithText(words(size));
    const json = JSON.stringify(event);
    const hit = JSON.stringify(eventWithText(`${words(size / 2)} sk-${'a1B2c3D4'.repeat(5)} ${words(size / 2)}`));
    const timed = (op: () => unknown) => {
      for (let i = 0; i < 200; i++) op();
      const perOp: number[] = [];
      for (let s = 0; s < samples; s++) {
        const began = performance.now();
        for (let i = 0; i < 50; i++) op();
        perOp.push(((performance.now() - began) * 1_000) / 50);
      }
      return median(perOp);
    };
    return {
      eventBytes: json.length,
      serializeUs: timed(() => JSON.stringify(event)),
      maskUs: timed(() => plain.maskJsonText(json)),
      maskWithPatternsUs: timed(() => withPatterns.maskJsonText(json)),
      maskHitUs: timed(() => plain.maskJsonText(hit)),
    };
  });
}

const eventWithText = (text: string) => ({
  runId: '01JZ0000000000000000000000',
  seq: 7,
  type: 'model.completed',
  at: '2026-12-01T00:00:00.000Z',
  path: 'root/answer',
  spanId: '0123456789abcdef',
  data: { model: 'openai:gpt-4o-mini', text, finishReason: 'stop', usage: { inputTokens: 812, outputTokens: 260, totalTokens: 1072 } },
});

/** Ordinary prose: words of 2 to 9 letters, `bytes` long. */
function words(bytes: number): string {
  const vocabulary = ['the', 'model', 'answered', 'with', 'a', 'summary', 'of', 'quarterly', 'results', 'and', 'risks'];
  let text = '';
  for (let i = 0; text.length < bytes; i++) text += `${vocabulary[(i * 7) % vocabulary.length]} `;
  return text.slice(0, bytes);
}
