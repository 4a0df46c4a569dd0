import type { Me } from '@spindle/client';
import { lazy, Suspense } from 'react';
import { useSession } from './auth/session';
import { Shortcuts } from './components/Shortcuts';
import { SignedInAs } from './components/SignedInAs';
import { ThemeToggle } from './components/ThemeToggle';
import { useRoute } from './router';
import { ApiReference } from './screens/ApiReference';
import { CompareScreen } from './screens/CompareScreen';
import { InboxScreen } from './screens/InboxScreen';
import { NotFound } from './screens/NotFound';
import { RunScreen } from './screens/RunScreen';
import { RunsScreen } from './screens/RunsScreen';
import { SchedulesScreen } from './screens/SchedulesScreen';
import { SignInScreen } from './screens/SignInScreen';
import { ThreadsScreen } from './screens/ThreadsScreen';
import { WebhooksScreen } from './screens/WebhooksScreen';
import { ExperimentsScreen } from './screens/ExperimentsScreen';
import { ReplaysScreen } from './screens/ReplaysScreen';
import { WorkflowsScreen } from './screens/WorkflowsScreen';

/** The console once signed in; before that, or after the gateway refused the credential, sign-in. */
/** The top bar's sections, in order: route segment and label. */
const NAV: ReadonlyArray<readonly [string, string]> = [
  ['overview', 'Overview'],
  ['workflows', 'Workflows'],
  ['runs', 'Runs'],
  ['inbox', 'Inbox'],
  ['threads', 'Threads'],
  ['schedules', 'Schedules'],
  ['webhooks', 'Webhooks'],
  ['experiments', 'Experiments'],
  ['replays', 'Replays'],
  ['api', 'API'],
];

export function App() {
  const session = useSession();
  if (session.state === 'signed-in') return <Console me={session.me} />;
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">Spindle</span>
        <ThemeToggle />
      </header>
      <main>
        {session.state === 'signed-out' && <SignInScreen config={session.config} problem={session.problem} />}
        {session.state === 'unreachable' && <SignInScreen problem={session.problem} />}
        {session.state === 'starting' && <p className="muted page">Loading…</p>}
      </main>
    </div>
  );
}

// The charting library is the console's largest part: loaded with the overview, not before.
const OverviewScreen = lazy(() => import('./screens/OverviewScreen').then((m) => ({ default: m.OverviewScreen })));

const SECTIONS = new Set([
  'overview',
  'workflows',
  'runs',
  'inbox',
  'threads',
  'schedules',
  'webhooks',
  'experiments',
  'replays',
  'api',
  'compare',
]);

function Console({ me }: { me: Me }) {
  const route = useRoute();
  const [section, id] = route.segments;
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">Spindle</span>
        <nav>
          {NAV.map(([to, label]) => (
            <a key={to} href={`#/${to}`} className={section === to ? 'active' : ''}>
              {label}
            </a>
          ))}
        </nav>
        <SignedInAs me={me} />
        <ThemeToggle />
      </header>
      <Shortcuts />
      <main>
        {section === 'overview' && (
          <Suspense fallback={<p className="page muted">Loading…</p>}>
            <OverviewScreen query={route.query} />
          </Suspense>
        )}
        {section === 'workflows' && <WorkflowsScreen selected={id} />}
        {section === 'runs' && !id && <RunsScreen query={route.query} />}
        {section === 'runs' && id && <RunScreen key={id} runId={id} query={route.query} />}
        {section === 'inbox' && <InboxScreen />}
        {section === 'threads' && <ThreadsScreen selected={id} />}
        {section === 'schedules' && <SchedulesScreen selected={id} />}
        {section === 'webhooks' && <WebhooksScreen selected={id} />}
        {section === 'experiments' && <ExperimentsScreen query={route.query} />}
        {section === 'replays' && <ReplaysScreen selected={id} />}
        {section === 'api' && <ApiReference />}
        {section === 'compare' && id && route.segments[2] && <CompareScreen key={route.segments.join('/')} a={id} b={route.segments[2]} />}
        {!SECTIONS.has(section ?? '') && <NotFound what={`There is no page at #/${route.segments.join('/')}.`} />}
      </main>
    </div>
  );
}
