import { isRetrievalResult, SpindleError, type ContextCutKind, type RunEventData } from '@spindle/contracts';
import { renderTemplate, templateKeys, templateText, templateValue } from '../interpreter/render-template';
import type { RunState } from '../interpreter/state';
import type { ChatMessage } from '../ports';
import type { ContextBudget } from './context-budget';
import { countTokens, FILE_ATTACHMENT_TOKENS, messageTokens, promptTokens, TOKENS_PER_MESSAGE, TOKENS_REPLY_PRIMING } from './tokens';
import { truncateText, type TruncatedText } from './truncate-text';

/** One cut as `context.truncated` records it. */
export type ContextCut = RunEventData<'context.truncated'>;

export interface PromptInput {
  system?: string;
  /** The conversation as the node holds it: remembered history, the newest user message, this node's own turns. */
  messages: readonly ChatMessage[];
  /** Index of the newest user message: never cut (the fields rendered into it may be), nor what follows it dropped. */
  promptIndex: number;
  /** The template and state that message was rendered from, so its fields can be cut and it rendered again. */
  template?: { text: string; state: RunState };
}

export interface AssembledPrompt {
  messages: ChatMessage[];
  cuts: ContextCut[];
}

/** A field of the prompt template: the placeholder path, its rendered text, and how often it appears. */
interface Field {
  path: string;
  text: string;
  kind: Extract<ContextCutKind, 'retrieval' | 'state_field'>;
  occurrences: number;
}

/** At most this many planning passes: a recount after cutting can differ from the arithmetic by a token or two at the seams. */
const PASSES = 3;

/**
 * Fits a prompt into its budget, cutting the kinds of part in the budget's order (lowest priority
 * first): `history` drops the oldest whole turns (a turn starts at a user message, so a tool
 * result never loses its call), `tool_result`, `retrieval` and `state_field` shorten the part's
 * text (see truncate-text.ts). The system prompt and the newest user message are never cut:
 * when they alone are over the budget the call fails with `context_budget_exceeded`, before any
 * provider hears of it. Pure: the same input gives the same cuts, which is what resume relies on.
 */
export function assemblePrompt(input: PromptInput, budget: ContextBudget): AssembledPrompt {
  if (upperBound(input) <= budget.limit) return { messages: [...input.messages], cuts: [] };
  const plan = new CutPlan(input, budget);
  for (let pass = 0; pass < PASSES; pass++) {
    let over = plan.tokens() - budget.limit;
    if (over <= 0) break;
    for (const kind of budget.cutOrder) {
      if (over <= 0) break;
      over -= plan.cut(kind, over);
    }
  }
  const tokens = plan.tokens();
  if (tokens > budget.limit)
    throw new SpindleError(
      'context_budget_exceeded',
      `the prompt counts ${tokens} tokens after every cut, over its budget of ${budget.limit}: ` +
        'the system prompt and the newest message are never cut, so raise context.max_input_tokens or shorten them',
    );
  return { messages: plan.messages(), cuts: plan.recordedCuts() };
}

/**
 * Applies cuts a run's log already recorded for this call (a resumed node), instead of planning
 * again: the prompt is the one the first attempt sent, cut for cut. A recorded cut that names no
 * part of the prompt means the inputs changed under the log, which is a bug, not a user error.
 */
export function reapplyCuts(input: PromptInput, budget: ContextBudget, cuts: readonly ContextCut[]): AssembledPrompt {
  const plan = new CutPlan(input, budget);
  for (const cut of cuts)
    if (!plan.reapply(cut))
      throw new SpindleError('internal', `the recorded cut of ${cut.kind} "${cut.target}" matches no part of the resumed prompt`);
  return { messages: plan.messages(), cuts: [...cuts] };
}

/** A cheap bound (a token is at least one UTF-8 byte, a UTF-16 unit at most three): most prompts fit without tokenizing. */
function upperBound(input: PromptInput): number {
  const text = (s: string) => 3 * s.length;
  let bound = TOKENS_REPLY_PRIMING + (input.system ? TOKENS_PER_MESSAGE + text(input.system) : 0);
  for (const m of input.messages) {
    bound += TOKENS_PER_MESSAGE + text(m.content);
    if (m.role === 'assistant') for (const call of m.toolCalls ?? []) bound += text(call.name) + text(JSON.stringify(call.arguments));
    else bound += (m.attachments?.length ?? 0) * FILE_ATTACHMENT_TOKENS + (m.role === 'tool' ? text(m.toolName) : 0);
  }
  return bound;
}

/** Tokens of a message, memoized by identity: an agent's loop recounts the same messages every turn. */
const counted = new WeakMap<ChatMessage, number>();
function tokensOf(message: ChatMessage): number {
  let tokens = counted.get(message);
  if (tokens === undefined) counted.set(message, (tokens = messageTokens(message)));
  return tokens;
}

/** The cuts made so far to one prompt, and the prompt they leave. */
class CutPlan {
  private dropped = 0;
  private readonly toolCuts = new Map<number, TruncatedText>();
  private readonly fieldCuts = new Map<string, TruncatedText>();
  /** In the order first made; a part cut again in a later pass keeps its place and its `tokensBefore`. */
  private readonly cuts = new Map<string, ContextCut>();
  private fieldList?: Field[];
  private systemTokens?: number;
  private built?: ChatMessage[];

  constructor(
    private readonly input: PromptInput,
    private readonly budget: ContextBudget,
  ) {}

  /** What `promptTokens` counts, with each message's count memoized (`tokensOf`). */
  tokens(): number {
    this.systemTokens ??= promptTokens(this.input.system, []);
    return this.messages().reduce((sum, m) => sum + tokensOf(m), this.systemTokens);
  }

  messages(): ChatMessage[] {
    if (this.built) return this.built;
    const { messages, promptIndex, template } = this.input;
    const overrides = new Map([...this.fieldCuts].map(([path, cut]) => [path, cut.text]));
    return (this.built = messages.slice(this.dropped).map((m, offset) => {
      const i = offset + this.dropped;
      if (i === promptIndex && template && overrides.size)
        return { ...m, content: renderTemplate(template.text, template.state, overrides) };
      const cut = this.toolCuts.get(i);
      return cut ? { ...m, content: cut.text } : m;
    }));
  }

  /** Cuts parts of `kind` by about `over` tokens; returns the tokens saved. */
  cut(kind: ContextCutKind, over: number): number {
    const saved =
      kind === 'history' ? this.dropTurns(over) : kind === 'tool_result' ? this.cutToolResults(over) : this.cutFields(kind, over);
    if (saved > 0) this.built = undefined;
    return saved;
  }

  reapply(cut: ContextCut): boolean {
    this.built = undefined;
    const key = this.reapplied(cut);
    if (key === undefined) return false;
    this.cuts.set(key, cut);
    return true;
  }

  recordedCuts(): ContextCut[] {
    return [...this.cuts.values()];
  }

  private reapplied(cut: ContextCut): string | undefined {
    if (cut.kind === 'history') {
      const dropped = cut.droppedMessages ?? 0;
      if (dropped > this.input.promptIndex) return undefined;
      this.dropped = dropped;
      return 'history';
    }
    if (cut.kind === 'tool_result') {
      // Dropped turns included: a later pass may have dropped the turn of a result an earlier pass cut.
      const i = this.toolIndexes(0).find(
        (j) => !this.toolCuts.has(j) && this.tool(j).toolName === cut.target && countTokens(this.tool(j).content) === cut.tokensBefore,
      );
      if (i === undefined) return undefined;
      this.toolCuts.set(i, truncateText(this.tool(i).content, cut.tokensAfter, cut.strategy));
      return `tool:${i}`;
    }
    const field = this.fields().find((f) => f.path === cut.target && f.kind === cut.kind);
    if (!field) return undefined;
    const result = truncateText(field.text, cut.tokensAfter, cut.strategy);
    if (result.tokensBefore !== cut.tokensBefore) return undefined;
    this.fieldCuts.set(field.path, result);
    return `field:${field.path}`;
  }

  /** Drops the oldest whole turns of the history until `over` tokens are saved or only the newest message and its turn are left. */
  private dropTurns(over: number): number {
    const { messages, promptIndex } = this.input;
    const before = this.historyTokens(0);
    let saved = 0;
    let start = this.dropped;
    while (start < promptIndex && saved < over) {
      let next = start + 1;
      while (next < promptIndex && messages[next].role !== 'user') next++;
      for (let i = start; i < next; i++) saved += this.currentTokens(i);
      start = next;
    }
    if (start === this.dropped) return 0;
    this.dropped = start;
    this.built = undefined;
    const previous = this.cuts.get('history');
    this.cuts.set('history', {
      kind: 'history',
      target: 'history',
      tokensBefore: previous?.tokensBefore ?? before,
      tokensAfter: this.historyTokens(start),
      strategy: this.budget.strategy,
      droppedMessages: start,
    });
    return saved;
  }

  private cutToolResults(over: number): number {
    let saved = 0;
    for (const i of this.toolIndexes()) {
      if (saved >= over) break;
      const current = this.toolCuts.get(i);
      const message = this.tool(i);
      const now = current?.tokensAfter ?? countTokens(message.content);
      const result = truncateText(message.content, Math.max(0, now - (over - saved)), this.budget.strategy);
      if (result.tokensAfter >= now) continue;
      saved += now - result.tokensAfter;
      this.toolCuts.set(i, result);
      this.record(`tool:${i}`, 'tool_result', message.toolName, result);
    }
    return saved;
  }

  private cutFields(kind: ContextCutKind, over: number): number {
    let saved = 0;
    for (const field of this.fields()) {
      if (saved >= over) break;
      if (field.kind !== kind) continue;
      const now = this.fieldCuts.get(field.path)?.tokensAfter ?? countTokens(field.text);
      const result = truncateText(field.text, Math.max(0, now - Math.ceil((over - saved) / field.occurrences)), this.budget.strategy);
      if (result.tokensAfter >= now) continue;
      saved += (now - result.tokensAfter) * field.occurrences;
      this.fieldCuts.set(field.path, result);
      this.record(`field:${field.path}`, kind, field.path, result);
    }
    return saved;
  }

  private record(key: string, kind: ContextCutKind, target: string, result: TruncatedText) {
    const tokensBefore = this.cuts.get(key)?.tokensBefore ?? result.tokensBefore;
    this.cuts.set(key, { kind, target, tokensBefore, tokensAfter: result.tokensAfter, strategy: this.budget.strategy });
  }

  /** Tool results from message `from` on (by default those still in the prompt), oldest first. */
  private toolIndexes(from = this.dropped): number[] {
    const indexes: number[] = [];
    this.input.messages.forEach((m, i) => i >= from && m.role === 'tool' && indexes.push(i));
    return indexes;
  }

  private tool(i: number): Extract<ChatMessage, { role: 'tool' }> {
    return this.input.messages[i] as Extract<ChatMessage, { role: 'tool' }>;
  }

  private currentTokens(i: number): number {
    const cut = this.toolCuts.get(i);
    return cut ? tokensOf({ ...this.tool(i), content: cut.text }) : tokensOf(this.input.messages[i]);
  }

  private historyTokens(from: number): number {
    let tokens = 0;
    for (let i = from; i < this.input.promptIndex; i++) tokens += this.currentTokens(i);
    return tokens;
  }

  /** The prompt template's fields, in order of first appearance; a retrieve node's result is `retrieval`. */
  private fields(): Field[] {
    if (this.fieldList) return this.fieldList;
    const { template } = this.input;
    const byPath = new Map<string, Field>();
    if (!template) return (this.fieldList = []);
    for (const path of templateKeys(template.text)) {
      const known = byPath.get(path);
      if (known) known.occurrences++;
      else {
        const value = templateValue(template.state, path);
        byPath.set(path, { path, text: templateText(value), kind: isRetrievalResult(value) ? 'retrieval' : 'state_field', occurrences: 1 });
      }
    }
    return (this.fieldList = [...byPath.values()]);
  }
}
