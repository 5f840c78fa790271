import { ADMIN, STAFF } from '../../kernel/caller.js';
import { createPolicySchema, listPoliciesQuery, updatePolicySchema } from '../../policies/policies.schemas.js';
import { createPolicy, deletePolicy, getPolicy, listPolicies, updatePolicy } from '../../policies/policies.service.js';
import { deletedPolicySchema, policyListSchema, policySchema } from '../../policies/policy.view.js';
import { simulateSchema } from '../../simulation/simulate.schemas.js';
import { policySimulationSchema } from '../../simulation/simulation.view.js';
import { simulatePolicy } from '../../simulation/simulation.service.js';
import { link, list, route, type RouteDeps } from '../route.js';

/**
 * Cached callers carry their agent's `require_signed_requests` (DECISIONS §19): once a policy
 * changes, this process drops them, so the next request reads the flag anew.
 */
export async function changed<T>(deps: Pick<RouteDeps, 'onCredentialsChanged'>, result: Promise<T>): Promise<T> {
  const value = await result;
  deps.onCredentialsChanged?.();
  return value;
}

const policyObject = { status: 200, description: 'The policy object', schema: policySchema };

export const policiesRoutes = [
  route({
    method: 'post',
    path: '/v1/policies',
    tag: 'Policies',
    roles: ADMIN,
    summary: 'Create a policy',
    body: createPolicySchema,
    response: { ...policyObject, status: 201 },
    links: {
      RetrievePolicy: link('get /v1/policies/:id', 'id', 'id'),
      UpdatePolicy: link('patch /v1/policies/:id', 'id', 'id'),
      DeletePolicy: link('delete /v1/policies/:id', 'id', 'id'),
    },
    handler: ({ deps, caller, body }) => changed(deps, createPolicy(deps.db, caller, body)),
  }),
  route({
    method: 'post',
    path: '/v1/policies/simulate',
    tag: 'Policies',
    roles: STAFF,
    summary: 'Evaluate a draft or saved policy against given or recorded requests, without side effects',
    body: simulateSchema,
    response: { status: 200, description: 'What the policy would have decided', schema: policySimulationSchema },
    errors: [404],
    handler: ({ deps, caller, body }) => simulatePolicy({ db: deps.db }, caller, body),
  }),
  route({
    method: 'get',
    path: '/v1/policies',
    tag: 'Policies',
    roles: STAFF,
    summary: 'List policies',
    query: listPoliciesQuery,
    response: list(policyListSchema),
    handler: ({ deps, caller, query }) => listPolicies(deps.db, caller, query),
  }),
  route({
    method: 'get',
    path: '/v1/policies/:id',
    tag: 'Policies',
    roles: STAFF,
    summary: 'Retrieve a policy',
    params: { id: 'Policy id (`pol_…`)' },
    response: policyObject,
    handler: ({ deps, caller, params }) => getPolicy(deps.db, caller, params.id),
  }),
  route({
    method: 'patch',
    path: '/v1/policies/:id',
    tag: 'Policies',
    roles: ADMIN,
    summary: 'Update a policy',
    params: { id: 'Policy id' },
    body: updatePolicySchema,
    response: policyObject,
    handler: ({ deps, caller, params, body }) => changed(deps, updatePolicy(deps.db, caller, params.id, body)),
  }),
  route({
    method: 'delete',
    path: '/v1/policies/:id',
    tag: 'Policies',
    roles: ADMIN,
    summary: 'Delete a policy (409 while an agent is bound)',
    params: { id: 'Policy id' },
    response: { status: 200, description: 'The deletion', schema: deletedPolicySchema },
    errors: [409],
    handler: ({ deps, caller, params }) => changed(deps, deletePolicy(deps.db, caller, params.id)),
  }),
];
