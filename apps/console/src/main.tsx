import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xyflow/react/dist/style.css';
import './styles.css';
import { App } from './App';
import { startSession } from './auth/session';
import { followSystemTheme } from './theme';

// Once per page load (not in an effect, which StrictMode runs twice): an identity provider's code is used once.
void startSession();
// Before the first paint, so a dark page never flashes light.
followSystemTheme();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
