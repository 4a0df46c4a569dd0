/**
 * The README's runnable examples: every shell block (```sh) in order, each with the ```json or
 * ```text block right after it (blank lines between at most) as the answer it shows. A shell block
 * is run when it talks to the gateway (`localhost:8080`, `npx spindle`); one that cannot run
 * against a test stack is skipped by a rule of {@link SKIP_RULES}; any other is an error, so a new
 * example is never left out silently.
 */
export interface ReadmeAnswer {
  lang: 'json' | 'text';
  text: string;
  /** 1-based line of the answer's first line. */
  line: number;
}

export interface ReadmeExample {
  /** 1-based line of the shell block's first command line. */
  line: number;
  /** The heading the block is under. */
  section: string;
  command: string;
  answer?: ReadmeAnswer;
  /** Why it is not run (a {@link SKIP_RULES} reason); undefined when it is. */
  skipped?: string;
}

export const SKIP_RULES: ReadonlyArray<{ pattern: RegExp; reason: string }> = [
  { pattern: /\b(docker|kubectl)\b/, reason: 'needs Docker or Kubernetes' },
  { pattern: /^\s*npm (ci|start|test)\b/m, reason: 'installs, starts or tests a stack of its own' },
  { pattern: /^\s*npm run examples\b/m, reason: 'examples.e2e.spec.ts runs every example in examples/' },
  {
    pattern: /^\s*npx spindle run\b.*--follow/m,
    reason: 'shows the live tree drawn on a terminal; cli.e2e.spec.ts runs it under a pseudo-terminal',
  },
  { pattern: /^\s*npx spindle webhooks listen\b/m, reason: 'waits for a delivery; cli.e2e.spec.ts runs it with a run that sends one' },
];

const TALKS_TO_GATEWAY = /localhost:8080|\bnpx spindle\b/;
const SHELL = new Set(['sh', 'bash', 'shell']);
const FENCE = /^```\s*([\w-]*)\s*$/;

interface Fenced {
  lang: string;
  text: string;
  line: number;
  section: string;
  /** The previous fenced block ended right before this one (blank lines between at most). */
  followsBlock: boolean;
}

export function readmeExamples(markdown: string): ReadmeExample[] {
  const blocks = fencedBlocks(markdown);
  const examples: ReadmeExample[] = [];
  blocks.forEach((block, i) => {
    if (!SHELL.has(block.lang)) return;
    const next = blocks[i + 1];
    const answer = next?.followsBlock && (next.lang === 'json' || next.lang === 'text') ? next : undefined;
    const example: ReadmeExample = {
      line: block.line,
      section: block.section,
      command: block.text,
      ...(answer ? { answer: { lang: answer.lang as ReadmeAnswer['lang'], text: answer.text, line: answer.line } } : {}),
    };
    const skip = SKIP_RULES.find((rule) => rule.pattern.test(block.text));
    if (skip) example.skipped = skip.reason;
    else if (!TALKS_TO_GATEWAY.test(block.text)) {
      throw new Error(`README line ${block.line}: a shell block that neither talks to the gateway nor matches a skip rule`);
    }
    examples.push(example);
  });
  return examples;
}

function fencedBlocks(markdown: string): Fenced[] {
  const blocks: Fenced[] = [];
  let section = '';
  let open: { lang: string; line: number; lines: string[]; followsBlock: boolean } | undefined;
  /** Only blank lines since the last block closed. */
  let rightAfterBlock = false;
  markdown.split('\n').forEach((text, i) => {
    const fence = FENCE.exec(text);
    if (open) {
      if (fence && fence[1] === '') {
        blocks.push({ lang: open.lang, text: open.lines.join('\n'), line: open.line, section, followsBlock: open.followsBlock });
        open = undefined;
        rightAfterBlock = true;
      } else open.lines.push(text);
      return;
    }
    if (fence) {
      open = { lang: fence[1].toLowerCase(), line: i + 2, lines: [], followsBlock: rightAfterBlock };
      return;
    }
    if (text.trim() !== '') {
      rightAfterBlock = false;
      const heading = /^#{1,6}\s+(.*)$/.exec(text);
      if (heading) section = heading[1].trim();
    }
  });
  if (open) throw new Error(`README line ${open.line - 1}: a code block is never closed`);
  return blocks;
}
