/** What user code reports it spent outside a model call: a paid API, an embedding, compute. */
export interface UsageReport {
  /** USD, ≥ 0: counted in the node's, branch's and run's cost and in `budget.maxTotalCost`. */
  costUsd?: number;
  /** Whole numbers ≥ 0, for code that calls a model of its own. */
  inputTokens?: number;
  outputTokens?: number;
  /** Named counts of whatever the code bills by (`requests`, `pages`, `seconds` …): at most 32, names up to 64 characters. */
  units?: Readonly<Record<string, number>> | ReadonlyMap<string, number>;
  /** What the spending was for, up to 200 characters. */
  label?: string;
}

/** What user code can do in the run while it runs, besides returning. */
interface RunVoice {
  /** The run's signal for this try: it aborts on cancel, on the run's or node's timeout and on this try's `timeoutMs`. */
  readonly signal: AbortSignal;
  /** 1 for the first try, 2 for the first retry … */
  readonly attempt: number;
  /**
   * `fetch` through the runner's egress guard: a target that is, or resolves to, an internal
   * address the operator did not allow (`SPINDLE_EGRESS_ALLOWED_HOSTS`) fails with a Spindle error
   * of code `egress_refused` before anything is sent, redirects included. Use it rather than the global one.
   */
  readonly fetch: typeof fetch;
  /**
   * Records a `custom` event `{ name, data }` under this code's span. `name` is a word or dotted
   * path (`order.looked_up`); `data` is JSON of at most 64 KiB, masked like every event. A bad
   * name or data throws at once (code `validation_failed` or `payload_too_large`); awaiting is optional.
   */
  emit(name: string, data?: unknown): Promise<void>;
  /**
   * Records what this code spent (`usage.reported`). The run counts it at once, so a budget it
   * breaches stops the run before its next step. A bad report throws `validation_failed`.
   */
  reportUsage(report: UsageReport): Promise<void>;
}

/** What a function node's code receives besides its arguments. */
export interface FunctionContext extends RunVoice {
  /** The run's state as the node sees it; return a delta instead of changing it. */
  readonly state: Readonly<Record<string, unknown>>;
  readonly runId: string;
  readonly nodeId: string;
}

/** What a tool's code receives besides its arguments. */
export interface ToolContext extends RunVoice {
  readonly runId: string;
  /** The agent (or tool) node that made the call. */
  readonly nodeId: string;
  /** The model's id of this call: stable across the call's tries. */
  readonly callId: string;
}
