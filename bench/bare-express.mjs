// The floor for any Express JSON endpoint on this machine: parse a small body, answer JSON.
import express from 'express';

const app = express();
app.use(express.json());
app.post('/json', (req, res) => res.json({ ok: true, amount: req.body.amount ?? null }));
const server = app.listen(0, '127.0.0.1', () => console.log(`listening on ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
