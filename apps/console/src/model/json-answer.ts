import { checkHumanAnswer } from '@spindle/engine/browser';

export type JsonAnswerCheck = { ok: true; data: unknown } | { ok: false; problems: string[] };

/**
 * Checks a JSON answer while the person types it: it must parse, then pass the engine's check of
 * a json form's answer, the one the gateway makes (same drafts, RE2 patterns and limits). The
 * gateway's check still decides, this one only saves a round trip; a schema the engine cannot
 * compile is left to the gateway, which refuses it with its own problem.
 */
export function checkJsonAnswer(text: string, schema: Record<string, unknown> | undefined): JsonAnswerCheck {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, problems: [`data: not JSON (${(e as Error).message})`] };
  }
  let checked: ReturnType<typeof checkHumanAnswer>;
  try {
    checked = checkHumanAnswer({ kind: 'json', schema }, { data });
  } catch {
    return { ok: true, data };
  }
  return checked.ok ? { ok: true, data } : { ok: false, problems: checked.issues.map((issue) => `${issue.field}: ${issue.message}`) };
}
