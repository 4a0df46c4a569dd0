import { readmeExamples } from './readme-examples';

const fence = '```';
const readme = [
  '# Title',
  '',
  `${fence}sh`,
  'npm ci',
  'npm start',
  fence,
  '## Quickstart',
  `${fence}sh`,
  'curl -s -H "$AUTH" localhost:8080/v1/me',
  fence,
  '',
  `${fence}json`,
  '{"actor":…}',
  fence,
  'Prose, then a JSON block that answers nothing:',
  `${fence}json`,
  '{"kind":"graph"}',
  fence,
  '### Trace',
  `${fence}sh`,
  'npx spindle trace 01ABC',
  fence,
  `${fence}text`,
  'kind  node',
  fence,
  `${fence}sh`,
  'curl -N localhost:8080/v1/runs/01ABC/events',
  fence,
  'Then prose before a block, which is no answer:',
  `${fence}text`,
  'id: 1',
  fence,
  `${fence}sh`,
  'kubectl -n spindle exec deploy/gateway -- node keys-cli.js list',
  fence,
].join('\n');

describe('the README examples', () => {
  it('are its shell blocks in order, each with the json or text block right after it as its answer', () => {
    expect(readmeExamples(readme)).toEqual([
      { line: 4, section: 'Title', command: 'npm ci\nnpm start', skipped: 'installs, starts or tests a stack of its own' },
      {
        line: 9,
        section: 'Quickstart',
        command: 'curl -s -H "$AUTH" localhost:8080/v1/me',
        answer: { lang: 'json', text: '{"actor":…}', line: 13 },
      },
      { line: 21, section: 'Trace', command: 'npx spindle trace 01ABC', answer: { lang: 'text', text: 'kind  node', line: 24 } },
      { line: 27, section: 'Trace', command: 'curl -N localhost:8080/v1/runs/01ABC/events' },
      {
        line: 34,
        section: 'Trace',
        command: 'kubectl -n spindle exec deploy/gateway -- node keys-cli.js list',
        skipped: 'needs Docker or Kubernetes',
      },
    ]);
  });

  it('leave no shell block out silently: one that neither talks to the gateway nor has a skip rule is an error', () => {
    expect(() => readmeExamples(['# T', `${fence}sh`, 'rm -rf build', fence].join('\n'))).toThrow(
      'README line 3: a shell block that neither talks to the gateway nor matches a skip rule',
    );
    expect(() => readmeExamples(['# T', `${fence}sh`, 'echo'].join('\n'))).toThrow('README line 2: a code block is never closed');
  });
});
