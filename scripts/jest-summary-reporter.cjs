// Records each Jest run's totals so `npm test` can print one closing line for the whole suite.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  constructor(globalConfig, options) {
    this.name = options?.name;
  }
  onRunComplete(contexts, results) {
    const dir = path.join(__dirname, '..', 'tmp', 'jest-results');
    fs.mkdirSync(dir, { recursive: true });
    const name = this.name ?? [...contexts][0]?.config?.displayName?.name ?? `run-${process.pid}`;
    fs.writeFileSync(
      path.join(dir, `${name}-${process.pid}.json`),
      JSON.stringify({
        name,
        passed: results.numPassedTests,
        failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
        skipped: results.numPendingTests + results.numTodoTests,
        // What failed, briefly: `npm test` repeats it last, where a CI log's tail shows it.
        failures: results.testResults.flatMap((file) => [
          ...(file.testExecError
            ? [{ test: path.relative(process.cwd(), file.testFilePath), error: firstLines(file.testExecError.message) }]
            : []),
          ...file.testResults
            .filter((t) => t.status === 'failed')
            .map((t) => ({
              test: `${path.relative(process.cwd(), file.testFilePath)} › ${t.fullName}`,
              error: firstLines(t.failureMessages[0]),
            })),
        ]),
      }),
    );
  }
}
function firstLines(text = '') {
  // eslint-disable-next-line no-control-regex
  return text
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .slice(0, 8)
    .join('\n');
}
module.exports = SummaryReporter;
