/** The package's library surface, for receivers and rails written in Node.js. */
export { verifyWebhookSignature } from './webhooks/signature.js';
