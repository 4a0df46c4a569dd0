import type { Me } from '@spindle/client';
import { signOut } from '../auth/session';

/** Who the console acts as, in the top bar: the actor, its tenant, and sign-out. */
export function SignedInAs({ me }: { me: Me }) {
  const { actor, tenant } = me;
  return (
    <div className="signed-in-as">
      <span data-testid="signed-in-as" title={`${actor.kind} ${actor.id} · scopes: ${me.scopes.join(' ')}`}>
        <b data-testid="actor-name">{actor.name || actor.id}</b> · tenant{' '}
        <span data-testid="tenant">{tenant.name === tenant.id ? tenant.id : `${tenant.name} (${tenant.id})`}</span>
      </span>
      {me.via !== 'auth_off' && <button onClick={signOut}>Sign out</button>}
    </div>
  );
}
