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
      }),
    );
  }
}
module.exports = SummaryReporter;
