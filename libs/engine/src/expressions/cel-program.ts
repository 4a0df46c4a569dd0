import { celEnvironment, internal, INTERNAL_PREFIX } from './cel-environment';
import { MAX_COMPREHENSION_NESTING, MAX_EXPRESSION_LENGTH } from './expression-limits';
import { linearRegexProblem } from './linear-regex';

/** An expression parsed, checked against the static limits and rewritten to run bounded. */
export interface CelProgram {
  evaluate(context: Record<string, unknown>): unknown;
  /** Names the expression reads: only these state keys are converted for it. */
  identifiers: ReadonlySet<string>;
}

/** The expression breaks a rule that can be checked without evaluating it (message reads after "expression "). */
export class ExpressionRefusal extends Error {}

/**
 * The parts of a cel-js syntax-tree node used here. Beyond the typed public view (`op`, `args`),
 * a macro call (`all`, `exists`, `map`…) keeps its expansion, a `comprehension` node, in
 * `meta.alternate`; cel-js is pinned, and the nesting and step-budget tests fail if that moves.
 */
interface Node {
  op: string;
  args: unknown;
  readonly meta: { alternate?: Node; macro?: unknown };
}
interface Comprehension {
  iterable: Node;
  init: Node;
  step: Node;
}

/** Operators whose work grows with the size of their operands. */
const METERED_OPERATORS = new Set(['==', '!=', '<', '<=', '>', '>=', '+', 'in']);
/** Functions that take constant time whatever their argument. */
const FREE_FUNCTIONS = new Set(['type', 'dyn']);

/**
 * Parses `expression` (cel-js enforces the node, depth and literal limits) and rewrites its tree:
 * `matches` runs on the linear-time engine, `duration` and `lastIndexOf` are bounded, and every
 * operand an operator or function reads, and every comprehension range, is wrapped in a call that
 * charges the step budget. Throws `ExpressionRefusal`, or cel-js's `ParseError`.
 */
export function compileCel(expression: string): CelProgram {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionRefusal(`is ${expression.length} characters long, over MAX_EXPRESSION_LENGTH (${MAX_EXPRESSION_LENGTH})`);
  }
  const parsed = celEnvironment.parse(expression);
  const rewrite = new Rewrite();
  rewrite.visit(parsed.ast as unknown as Node, 0);
  return { evaluate: (context) => parsed(context), identifiers: rewrite.identifiers };
}

class Rewrite {
  readonly identifiers = new Set<string>();
  private readonly seen = new Set<Node>();

  /** Rewrites the subtree below `node` in place; returns how many nodes it has. */
  visit(node: Node, nesting: number): number {
    if (this.seen.has(node)) return 0;
    this.seen.add(node);
    const alternate = node.meta.alternate;
    if (alternate) return this.visit(alternate, nesting);
    switch (node.op) {
      case 'value':
        return 1;
      case 'id':
        this.identifiers.add(this.allowed(node.args as string));
        return 1;
      case 'comprehension':
        return this.comprehension(node.args as Comprehension, nesting);
      case 'call':
      case 'rcall':
        return node.meta.macro ? 1 + this.children(node.args, nesting) : this.call(node, nesting);
      default:
        if (!METERED_OPERATORS.has(node.op)) return 1 + this.children(node.args, nesting);
        return 1 + this.meter(node.args as Node[], internal.read, nesting);
    }
  }

  private comprehension(args: Comprehension, nesting: number): number {
    if (nesting + 1 > MAX_COMPREHENSION_NESTING) {
      throw new ExpressionRefusal(
        `nests comprehensions (all, exists, exists_one, map, filter) ${nesting + 1} deep, ` +
          `over MAX_COMPREHENSION_NESTING (${MAX_COMPREHENSION_NESTING})`,
      );
    }
    const range = this.visit(args.iterable, nesting);
    const body = this.visit(args.init, nesting + 1) + this.visit(args.step, nesting + 1);
    args.iterable = callNode(internal.range, args.iterable, body);
    return 1 + range + body;
  }

  private call(node: Node, nesting: number): number {
    const args = node.args as [string, Node, Node[]] | [string, Node[]];
    const name = this.allowed(args[0]);
    const [receiver, callArgs] = node.op === 'rcall' ? [args[1] as Node, args[2] as Node[]] : [undefined, args[1] as Node[]];
    if (node.op === 'rcall' && name === 'matches' && callArgs.length === 1) {
      const pattern = callArgs[0];
      if (pattern.op === 'value' && typeof pattern.args === 'string') {
        const problem = linearRegexProblem(pattern.args, 're2');
        if (problem) throw new ExpressionRefusal(`has an invalid matches() ${problem}`);
      }
      args[0] = internal.matches;
      // The match is charged by its own work; its operands are read once, by the engine.
      return 1 + this.children(args.slice(1), nesting);
    }
    if (node.op === 'rcall' && name === 'lastIndexOf') args[0] = internal.lastIndexOf;
    if (node.op === 'call' && name === 'duration' && callArgs.length === 1) args[0] = internal.duration;
    let count = 1;
    if (receiver) {
      count += this.visit(receiver, nesting);
      if (!FREE_FUNCTIONS.has(name)) args[1] = wrap(receiver, name === 'size' ? internal.readText : internal.read);
    }
    return (
      count +
      (FREE_FUNCTIONS.has(name)
        ? this.children(callArgs, nesting)
        : this.meter(callArgs, name === 'size' ? internal.readText : internal.read, nesting))
    );
  }

  /** Visits each operand, then wraps it (unless a literal) in a call to `meterName`. */
  private meter(operands: Node[], meterName: string, nesting: number): number {
    let count = 0;
    operands.forEach((operand, i) => {
      count += this.visit(operand, nesting);
      operands[i] = wrap(operand, meterName);
    });
    return count;
  }

  /** Visits the nodes in an operand payload (a node, or arrays of nodes and names). */
  private children(payload: unknown, nesting: number): number {
    if (Array.isArray(payload)) return payload.reduce((sum: number, item) => sum + this.children(item, nesting), 0);
    return isNode(payload) ? this.visit(payload, nesting) : 0;
  }

  private allowed(name: string): string {
    if (name.startsWith(INTERNAL_PREFIX))
      throw new ExpressionRefusal(`uses "${name}": names starting with ${INTERNAL_PREFIX} are reserved`);
    return name;
  }
}

function wrap(operand: Node, meterName: string): Node {
  return operand.op === 'value' ? operand : callNode(meterName, operand);
}

/** A call node `name(operand[, extra])`: parsed from a fixed template, then given the operand. */
function callNode(name: string, operand: Node, extra?: number): Node {
  const node = celEnvironment.parse(extra === undefined ? `${name}(x)` : `${name}(x, ${Math.max(1, Math.ceil(extra))})`)
    .ast as unknown as Node;
  (node.args as [string, Node[]])[1][0] = operand;
  return node;
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).op === 'string' && 'meta' in value;
}
