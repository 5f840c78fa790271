import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type Response } from 'express';

/**
 * The page holds no data: everything it shows comes from /v1 with the key the person pastes in,
 * so no script but its own may run, nothing but this origin may be reached, and no page may frame it.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The folder holding dashboard/index.html: from src/http (tsx) or dist/src/http (built). */
export function findDashboardDir(from = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'dashboard');
    if (fs.existsSync(path.join(candidate, 'index.html'))) return candidate;
    // Never past the package root: a folder of that name elsewhere is not ours.
    if (fs.existsSync(path.join(dir, 'package.json')) || path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The dashboard's API client (dashboard/api.js) is openapi-fetch, served as the package ships its
 * ES module build: the same code and version as the MCP server's client, no copy to keep in step.
 */
export const VENDOR_MODULES: Readonly<Record<string, string>> = {
  '/openapi-fetch.js': path.join(path.dirname(createRequire(import.meta.url).resolve('openapi-fetch/package.json')), 'dist', 'index.mjs'),
};

function secure(res: Response): void {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  // Files are not fingerprinted: revalidate each time, so a deploy shows at once.
  res.setHeader('Cache-Control', 'no-cache');
}

/** The page itself (GET /dashboard, declared in routes/operations.ts). */
export function sendDashboardPage(res: Response, dir: string): void {
  secure(res);
  res.sendFile('index.html', { root: dir });
}

/**
 * The page's scripts, styles and vendored modules under /dashboard/: plain middleware, not routes,
 * since they are files of the page, not API operations (the document says so of /dashboard).
 */
export function dashboardFiles(dir: string | undefined): Router {
  const r = Router();
  if (!dir) return r;
  r.use('/dashboard/vendor', (req, res, next) => {
    const file = VENDOR_MODULES[req.path];
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    secure(res);
    res.sendFile(file, { headers: { 'Content-Type': 'text/javascript; charset=utf-8' } });
  });
  r.use(
    '/dashboard',
    express.static(dir, {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      setHeaders: (res) => secure(res),
    }),
  );
  return r;
}
