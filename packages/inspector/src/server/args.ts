/** The `act-inspector` command line. */
import { checkTenantId } from "@act-root/act/internal";

export const USAGE = `Usage: act-inspector --pg <postgres url> [--schema <schema>] [--table <table>] [--port <port>] [--operations]
       act-inspector --sqlite <file> [--port <port>] [--operations]
       act-inspector --sqlite-tenants <folder> --tenant <id> [--port <port>] [--operations]
       act-inspector --pg <postgres url> --pg-schema-tenant <id> [--prefix <prefix>] [--table <table>] […]
       act-inspector --pg <postgres url> --pg-shared-tenant <id> [--schema <schema>] [--table <table>] […]

  --pg <url>      the database (or set ACT_INSPECTOR_PG)
  --sqlite <file> a SqliteStore file (never created: it must exist)
  --schema <s>    schema of the events table (default public)
  --table <t>     events table (default events)
  --port <n>      port on 127.0.0.1 (default: any free port)
  --operations    allow unblocking and resetting reaction streams (default: read-only)

One tenant of act()…buildTenants, as its strategy stores it:
  --sqlite-tenants <folder> --tenant <id>
                  sqliteTenants({ folder }): the tenant's file <folder>/<id>.db
  --pg-schema-tenant <id>
                  postgresSchemaTenants: the tenant's schema, <prefix><id> with - as _
  --prefix <p>    the schemas' prefix (default tenant_)
  --pg-shared-tenant <id>
                  postgresSharedTenants: the tenant's rows of the shared tables, under row-level
                  security (connect as the app role: a role that bypasses it is refused)`;

/** The command line, parsed; throws with a message for the user on a mistake. */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  const out: {
    pg?: string;
    sqlite?: string;
    schema?: string;
    table?: string;
    port?: number;
    sqliteTenants?: string;
    tenant?: string;
    pgSchemaTenant?: string;
    pgSharedTenant?: string;
    prefix?: string;
    operations: boolean;
    help: boolean;
  } = {
    operations: false,
    help: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) throw new Error(`${arg} needs a value`);
      return v;
    };
    /** A tenant id, checked by the rule every strategy applies. */
    const tenant = () => {
      const id = value();
      try {
        return checkTenantId(id);
      } catch (error) {
        throw new Error(`${arg}: ${(error as Error).message}`);
      }
    };
    if (arg === "--pg") out.pg = value();
    else if (arg === "--schema") out.schema = value();
    else if (arg === "--table") out.table = value();
    else if (arg === "--port") {
      const port = Number(value());
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error("--port must be a port number");
      out.port = port;
    } else if (arg === "--operations") out.operations = true;
    else if (arg === "--help" || arg === "-h") out.help = true;
    else if (arg === "--sqlite") out.sqlite = value();
    else if (arg === "--sqlite-tenants") out.sqliteTenants = value();
    else if (arg === "--tenant") out.tenant = tenant();
    else if (arg === "--pg-schema-tenant") out.pgSchemaTenant = tenant();
    else if (arg === "--pg-shared-tenant") out.pgSharedTenant = tenant();
    else if (arg === "--prefix") out.prefix = value();
    else throw new Error(`unknown option ${arg}`);
  }
  const sqlite = out.sqlite !== undefined || out.sqliteTenants !== undefined;
  if (out.pg && sqlite) throw new Error("give either --pg or --sqlite (or --sqlite-tenants), not both");
  if (out.sqlite !== undefined && out.sqliteTenants !== undefined)
    throw new Error("give either --sqlite (one file) or --sqlite-tenants (a folder of tenants' files), not both");
  if ((out.sqliteTenants === undefined) !== (out.tenant === undefined))
    throw new Error(
      "--sqlite-tenants <folder> and --tenant <id> go together: the folder of sqliteTenants and the tenant to inspect"
    );
  if (out.pgSchemaTenant !== undefined && out.pgSharedTenant !== undefined)
    throw new Error("give either --pg-schema-tenant or --pg-shared-tenant, not both");
  if (out.pgSchemaTenant !== undefined && out.schema !== undefined)
    throw new Error("--pg-schema-tenant names the schema (the prefix and the tenant): leave --schema out");
  if (out.prefix !== undefined && out.pgSchemaTenant === undefined)
    throw new Error("--prefix goes with --pg-schema-tenant");
  if (sqlite && (out.pgSchemaTenant !== undefined || out.pgSharedTenant !== undefined))
    throw new Error("--pg-schema-tenant and --pg-shared-tenant read PostgreSQL: give --pg, not a SQLite file");
  if (!sqlite) out.pg ??= env.ACT_INSPECTOR_PG;
  if (!out.help && !out.pg && !sqlite)
    throw new Error(
      "give the database with --pg <url> (or ACT_INSPECTOR_PG), --sqlite <file> or --sqlite-tenants <folder>"
    );
  return out;
}
