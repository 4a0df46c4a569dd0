import { z } from 'zod';

/**
 * What the offline model `offline:script` says, written in the definition next to the model: a list of
 * turns, each either tool calls or a final answer. It never reaches a network, so agents, tool loops,
 * approvals, handoffs and managers run with no key, the same way every time.
 *
 * Which turn answers a call is read from the conversation alone (so a resumed run on another runner
 * gets the same answer): the turns whose `when` occurs in the conversation's user messages (or that
 * have no `when`) are the candidates, and the call takes the candidate at the position of the number
 * of assistant turns so far. A tool loop thus walks its turns in order; a node asked afresh each round
 * (a group chat manager) picks by `when`, first match first.
 */
export const SCRIPTED_MODEL = 'offline:script';

const scriptToolName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/, 'must be a tool name (letters, digits, _ . -)');

export const scriptToolCallSchema = z.strictObject({
  tool: scriptToolName,
  args: z.record(z.string(), z.unknown()).default({}),
});

export const scriptTurnSchema = z
  .strictObject({
    /** The turn applies only to a conversation whose user messages contain this text. */
    when: z.string().min(1).max(1000).optional(),
    /** Tool calls, all in one reply. */
    calls: z.array(scriptToolCallSchema).min(1).max(16).optional(),
    /** What the model shows of its reasoning before the turn's calls or answer. */
    reasoning: z.string().min(1).max(100_000).optional(),
    /** The final answer: text, or JSON (written as JSON text, e.g. a structured answer or a manager's choice). */
    answer: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  })
  .refine((t) => (t.calls === undefined) !== (t.answer === undefined), {
    message: 'a turn has exactly one of calls (tool calls) or answer (the final text)',
    path: ['answer'],
  });

export const modelScriptSchema = z.array(scriptTurnSchema).min(1).max(200);

export type ScriptToolCall = z.infer<typeof scriptToolCallSchema>;
export type ScriptTurn = z.infer<typeof scriptTurnSchema>;
export type ModelScript = z.infer<typeof modelScriptSchema>;

/** `script` belongs with `offline:script` and nowhere else: a refinement for every place that names a model. */
export function checkScript(value: { model?: string; script?: unknown }, ctx: z.RefinementCtx): void {
  if (value.model === SCRIPTED_MODEL && value.script === undefined)
    ctx.addIssue({ code: 'custom', path: ['script'], message: `model "${SCRIPTED_MODEL}" needs a script (its turns)` });
  if (value.model !== SCRIPTED_MODEL && value.script !== undefined)
    ctx.addIssue({ code: 'custom', path: ['script'], message: `a script is only for model "${SCRIPTED_MODEL}"` });
}
