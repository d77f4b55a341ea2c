/** The `act-inspector` command line. */

export const USAGE = `Usage: act-inspector --pg <postgres url> [--schema <schema>] [--table <table>] [--port <port>] [--operations]
       act-inspector --sqlite <file> [--port <port>] [--operations]

  --pg <url>      the database (or set ACT_INSPECTOR_PG)
  --sqlite <file> a SqliteStore file (never created: it must exist)
  --schema <s>    schema of the events table (default public)
  --table <t>     events table (default events)
  --port <n>      port on 127.0.0.1 (default: any free port)
  --operations    allow unblocking and resetting reaction streams (default: read-only)`;

/** The command line, parsed; throws with a message for the user on a mistake. */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv = process.env) {
  const out: {
    pg?: string;
    sqlite?: string;
    schema?: string;
    table?: string;
    port?: number;
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
    else throw new Error(`unknown option ${arg}`);
  }
  if (out.pg && out.sqlite) throw new Error("give either --pg or --sqlite, not both");
  if (!out.sqlite) out.pg ??= env.ACT_INSPECTOR_PG;
  if (!out.help && !out.pg && !out.sqlite)
    throw new Error("give the database with --pg <url> (or ACT_INSPECTOR_PG) or --sqlite <file>");
  return out;
}
