import { STAFF } from '../../kernel/caller.js';
import { usageQuery } from '../../usage/usage.schemas.js';
import { getUsage } from '../../usage/usage.service.js';
import { usageSchema } from '../../usage/usage.view.js';
import { route } from '../route.js';

export const usageRoutes = [
  route({
    method: 'get',
    path: '/v1/usage',
    tag: 'Usage',
    roles: STAFF,
    summary: "A month's billable checks and overage",
    query: usageQuery,
    response: { status: 200, description: 'The usage', schema: usageSchema },
    handler: ({ deps, caller, query }) => getUsage(deps.db, caller, query.month),
  }),
];
