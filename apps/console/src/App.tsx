import { useRoute } from './router';
import { InboxScreen } from './screens/InboxScreen';
import { RunScreen } from './screens/RunScreen';
import { RunsScreen } from './screens/RunsScreen';
import { WorkflowsScreen } from './screens/WorkflowsScreen';

export function App() {
  const route = useRoute();
  const [section, id] = route.segments;
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">Spindle</span>
        <nav>
          <a href="#/workflows" className={section === 'workflows' ? 'active' : ''}>
            Workflows
          </a>
          <a href="#/runs" className={section === 'runs' ? 'active' : ''}>
            Runs
          </a>
          <a href="#/inbox" className={section === 'inbox' ? 'active' : ''}>
            Inbox
          </a>
        </nav>
      </header>
      <main>
        {section === 'workflows' && <WorkflowsScreen selected={id} />}
        {section === 'runs' && !id && <RunsScreen query={route.query} />}
        {section === 'runs' && id && <RunScreen key={id} runId={id} query={route.query} />}
        {section === 'inbox' && <InboxScreen />}
      </main>
    </div>
  );
}
