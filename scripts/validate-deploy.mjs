#!/usr/bin/env node
// `npm test` step: renders every kustomization under deploy/ (kustomize, as `kubectl
// kustomize` embeds it) and checks every object it yields, and every example manifest, against
// the Kubernetes, KEDA, Prometheus Operator and Gateway API schemas (kubernetes-models, from
// npm: nothing is downloaded). A kind no schema here knows is an error, not a pass.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseAllDocuments } from 'yaml';

const require = createRequire(import.meta.url);
const RENDERED = ['deploy/base', 'deploy/overlays/production', 'deploy/nats'];
const EXAMPLES = ['deploy/examples/ingress-nginx.yaml', 'deploy/examples/gateway-api-httproute.yaml'];

/** Where the model of an apiVersion/kind lives; its `validate()` checks the object against the schema. */
function modelOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const candidates = {
    'keda.sh': `@kubernetes-models/keda/keda.sh/${version}/${kind}`,
    'monitoring.coreos.com': `@kubernetes-models/prometheus-operator/monitoring.coreos.com/${version}/${kind}`,
    'gateway.networking.k8s.io': `@kubernetes-models/gateway-api/gateway.networking.k8s.io/${version}/${kind}`,
  };
  const path = candidates[group] ?? `kubernetes-models/${group ? `${group}/` : ''}${version}/${kind}`;
  try {
    return require(path)[kind];
  } catch {
    return undefined;
  }
}

function render(dir) {
  try {
    return execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    if (e.code === 'ENOENT')
      throw new Error('kubectl (with its built-in kustomize) is needed to render deploy/; install it from your distribution');
    throw new Error(`kustomize ${dir}: ${e.stderr || e.message}`);
  }
}

const problems = [];
let checked = 0;
function check(source, text) {
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length) problems.push(`${source}: ${doc.errors[0].message}`);
    const object = doc.toJS();
    if (!object) continue;
    const where = `${source}: ${object.kind}/${object.metadata?.name}`;
    const Model = object.apiVersion && object.kind ? modelOf(object.apiVersion, object.kind) : undefined;
    if (!Model) {
      problems.push(`${where}: no schema for ${object.apiVersion} ${object.kind}`);
      continue;
    }
    try {
      new Model(object).validate();
      checked++;
    } catch (e) {
      problems.push(`${where}: ${e.message}`);
    }
  }
}

for (const dir of RENDERED) check(dir, render(dir));
for (const file of EXAMPLES) check(file, readFileSync(file, 'utf8'));
if (problems.length) {
  console.error(`deploy/ does not validate:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.exit(1);
}
console.log(`deploy/: ${RENDERED.length} kustomizations rendered, ${EXAMPLES.length} examples, ${checked} objects valid`);
