import { connect } from './src/db/connect';
const [sql, db = 'lab', port = '14391'] = process.argv.slice(2);
(async () => {
  const c = await connect({ server: '127.0.0.1', port: Number(port), database: db, authentication: { type: 'sql', user: 'sa' }, encrypt: false, trustServerCertificate: false }, 'StandIn-1', { role: 'monitor' });
  try { console.log(JSON.stringify(await c.query(sql))); } finally { await c.close(); }
})().catch((e) => { console.error('ERR', e.message); process.exit(1); });
