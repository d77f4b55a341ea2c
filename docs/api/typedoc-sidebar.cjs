// @ts-check
/** @type {import("@docusaurus/plugin-content-docs").SidebarsConfig} */
const typedocSidebar = {
  items: [
    {
      type: "category",
      label: "act-otel/src",
      items: [
        {
          type: "category",
          label: "Functions",
          items: [
            {
              type: "doc",
              id: "api/act-otel/src/functions/instrument",
              label: "instrument"
            }
          ]
        },
        {
          type: "category",
          label: "Type Aliases",
          items: [
            {
              type: "doc",
              id: "api/act-otel/src/type-aliases/Instrumented",
              label: "Instrumented"
            },
            {
              type: "doc",
              id: "api/act-otel/src/type-aliases/InstrumentOptions",
              label: "InstrumentOptions"
            }
          ]
        }
      ],
      link: {
        type: "doc",
        id: "api/act-otel/src/index"
      }
    },
    {
      type: "category",
      label: "act-pg/src",
      items: [
        {
          type: "category",
          label: "Classes",
          items: [
            {
              type: "doc",
              id: "api/act-pg/src/classes/PostgresStore",
              label: "PostgresStore"
            }
          ]
        },
        {
          type: "category",
          label: "Type Aliases",
          items: [
            {
              type: "doc",
              id: "api/act-pg/src/type-aliases/PostgresStoreConfig",
              label: "PostgresStoreConfig"
            }
          ]
        }
      ],
      link: {
        type: "doc",
        id: "api/act-pg/src/index"
      }
    },
    {
      type: "category",
      label: "act-sqlite/src",
      items: [
        {
          type: "category",
          label: "Classes",
          items: [
            {
              type: "doc",
              id: "api/act-sqlite/src/classes/SqliteStore",
              label: "SqliteStore"
            }
          ]
        },
        {
          type: "category",
          label: "Type Aliases",
          items: [
            {
              type: "doc",
              id: "api/act-sqlite/src/type-aliases/SqliteStoreOptions",
              label: "SqliteStoreOptions"
            }
          ]
        }
      ],
      link: {
        type: "doc",
        id: "api/act-sqlite/src/index"
      }
    },
    {
      type: "category",
      label: "act/src",
      items: [
        {
          type: "category",
          label: "Functions",
          items: [
            {
              type: "doc",
              id: "api/act/src/functions/act",
              label: "act"
            },
            {
              type: "doc",
              id: "api/act/src/functions/build_tracer",
              label: "build_tracer"
            },
            {
              type: "doc",
              id: "api/act/src/functions/checkCommit",
              label: "checkCommit"
            },
            {
              type: "doc",
              id: "api/act/src/functions/checkName",
              label: "checkName"
            },
            {
              type: "doc",
              id: "api/act/src/functions/checkOptions",
              label: "checkOptions"
            },
            {
              type: "doc",
              id: "api/act/src/functions/config",
              label: "config"
            },
            {
              type: "doc",
              id: "api/act/src/functions/dispose",
              label: "dispose"
            },
            {
              type: "doc",
              id: "api/act/src/functions/disposeAndExit",
              label: "disposeAndExit"
            },
            {
              type: "doc",
              id: "api/act/src/functions/extend",
              label: "extend"
            },
            {
              type: "doc",
              id: "api/act/src/functions/observe",
              label: "observe"
            },
            {
              type: "doc",
              id: "api/act/src/functions/patch",
              label: "patch"
            },
            {
              type: "doc",
              id: "api/act/src/functions/port",
              label: "port"
            },
            {
              type: "doc",
              id: "api/act/src/functions/sleep",
              label: "sleep"
            },
            {
              type: "doc",
              id: "api/act/src/functions/state",
              label: "state"
            },
            {
              type: "doc",
              id: "api/act/src/functions/stringifyJson",
              label: "stringifyJson"
            },
            {
              type: "doc",
              id: "api/act/src/functions/upcaster",
              label: "upcaster"
            },
            {
              type: "doc",
              id: "api/act/src/functions/validate",
              label: "validate"
            }
          ]
        },
        {
          type: "category",
          label: "Classes",
          items: [
            {
              type: "doc",
              id: "api/act/src/classes/Act",
              label: "Act"
            },
            {
              type: "doc",
              id: "api/act/src/classes/ConcurrencyError",
              label: "ConcurrencyError"
            },
            {
              type: "doc",
              id: "api/act/src/classes/InMemoryStore",
              label: "InMemoryStore"
            },
            {
              type: "doc",
              id: "api/act/src/classes/InvariantError",
              label: "InvariantError"
            },
            {
              type: "doc",
              id: "api/act/src/classes/StoreError",
              label: "StoreError"
            },
            {
              type: "doc",
              id: "api/act/src/classes/ValidationError",
              label: "ValidationError"
            }
          ]
        },
        {
          type: "category",
          label: "Interfaces",
          items: [
            {
              type: "doc",
              id: "api/act/src/interfaces/Store",
              label: "Store"
            }
          ]
        },
        {
          type: "category",
          label: "Type Aliases",
          items: [
            {
              type: "doc",
              id: "api/act/src/type-aliases/ActBuilder",
              label: "ActBuilder"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ActionBuilder",
              label: "ActionBuilder"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ActionEmitStep",
              label: "ActionEmitStep"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ActionHandler",
              label: "ActionHandler"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ActionHandlers",
              label: "ActionHandlers"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ActionInfo",
              label: "ActionInfo"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ActionOutcome",
              label: "ActionOutcome"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Actor",
              label: "Actor"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/AsCommitted",
              label: "AsCommitted"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/BlockedLease",
              label: "BlockedLease"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/CausationEvent",
              label: "CausationEvent"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Committed",
              label: "Committed"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/CommittedMeta",
              label: "CommittedMeta"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/CommittedOf",
              label: "CommittedOf"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Config",
              label: "Config"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ConsumerOptions",
              label: "ConsumerOptions"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Dispatcher",
              label: "Dispatcher"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Disposable",
              label: "Disposable"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Disposer",
              label: "Disposer"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Drain",
              label: "Drain"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/DrainOptions",
              label: "DrainOptions"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Emitted",
              label: "Emitted"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/EmptySchema",
              label: "EmptySchema"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Environment",
              label: "Environment"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/EventMeta",
              label: "EventMeta"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/EventRegister",
              label: "EventRegister"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ExitCode",
              label: "ExitCode"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Fetch",
              label: "Fetch"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/GivenHandlers",
              label: "GivenHandlers"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Invariant",
              label: "Invariant"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/KeyedVersions",
              label: "KeyedVersions"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Lease",
              label: "Lease"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Lifecycle",
              label: "Lifecycle"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/LoadInfo",
              label: "LoadInfo"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Logger",
              label: "Logger"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/LogLevel",
              label: "LogLevel"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Message",
              label: "Message"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Observer",
              label: "Observer"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Package",
              label: "Package"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Patch",
              label: "Patch"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/PatchHandler",
              label: "PatchHandler"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/PatchHandlers",
              label: "PatchHandlers"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/PointInTime",
              label: "PointInTime"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Poll",
              label: "Poll"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Query",
              label: "Query"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Reaction",
              label: "Reaction"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionDoStep",
              label: "ReactionDoStep"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionFilter",
              label: "ReactionFilter"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionHandler",
              label: "ReactionHandler"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionInfo",
              label: "ReactionInfo"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionOptions",
              label: "ReactionOptions"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionPayload",
              label: "ReactionPayload"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionResolver",
              label: "ReactionResolver"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionsRegister",
              label: "ReactionsRegister"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionStats",
              label: "ReactionStats"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionStep",
              label: "ReactionStep"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ReactionStream",
              label: "ReactionStream"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Registry",
              label: "Registry"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Schema",
              label: "Schema"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/SchemaRegister",
              label: "SchemaRegister"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Schemas",
              label: "Schemas"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Snapshot",
              label: "Snapshot"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/State",
              label: "State"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/StateBuilder",
              label: "StateBuilder"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/StateBuildStep",
              label: "StateBuildStep"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/StateEmitsStep",
              label: "StateEmitsStep"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/StateInitStep",
              label: "StateInitStep"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/StatePatchStep",
              label: "StatePatchStep"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/StateSchema",
              label: "StateSchema"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/StateSchemas",
              label: "StateSchemas"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/StoreFailure",
              label: "StoreFailure"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Target",
              label: "Target"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/TraceContext",
              label: "TraceContext"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Upcaster",
              label: "Upcaster"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/Upcasters",
              label: "Upcasters"
            },
            {
              type: "doc",
              id: "api/act/src/type-aliases/ZodTypes",
              label: "ZodTypes"
            }
          ]
        },
        {
          type: "category",
          label: "Variables",
          items: [
            {
              type: "doc",
              id: "api/act/src/variables/ActorSchema",
              label: "ActorSchema"
            },
            {
              type: "doc",
              id: "api/act/src/variables/CausationEventSchema",
              label: "CausationEventSchema"
            },
            {
              type: "doc",
              id: "api/act/src/variables/CommittedMetaSchema",
              label: "CommittedMetaSchema"
            },
            {
              type: "doc",
              id: "api/act/src/variables/Environments",
              label: "Environments"
            },
            {
              type: "doc",
              id: "api/act/src/variables/Errors",
              label: "Errors"
            },
            {
              type: "doc",
              id: "api/act/src/variables/EventMetaSchema",
              label: "EventMetaSchema"
            },
            {
              type: "doc",
              id: "api/act/src/variables/ExitCodes",
              label: "ExitCodes"
            },
            {
              type: "doc",
              id: "api/act/src/variables/logger",
              label: "logger"
            },
            {
              type: "doc",
              id: "api/act/src/variables/LogLevels",
              label: "LogLevels"
            },
            {
              type: "doc",
              id: "api/act/src/variables/MAX_STREAM_LENGTH",
              label: "MAX_STREAM_LENGTH"
            },
            {
              type: "doc",
              id: "api/act/src/variables/NameSchema",
              label: "NameSchema"
            },
            {
              type: "doc",
              id: "api/act/src/variables/OptionSchemas",
              label: "OptionSchemas"
            },
            {
              type: "doc",
              id: "api/act/src/variables/QuerySchema",
              label: "QuerySchema"
            },
            {
              type: "doc",
              id: "api/act/src/variables/SNAP_EVENT",
              label: "SNAP_EVENT"
            },
            {
              type: "doc",
              id: "api/act/src/variables/store",
              label: "store"
            },
            {
              type: "doc",
              id: "api/act/src/variables/StreamSchema",
              label: "StreamSchema"
            },
            {
              type: "doc",
              id: "api/act/src/variables/TargetSchema",
              label: "TargetSchema"
            },
            {
              type: "doc",
              id: "api/act/src/variables/TraceContextSchema",
              label: "TraceContextSchema"
            },
            {
              type: "doc",
              id: "api/act/src/variables/ZodEmpty",
              label: "ZodEmpty"
            }
          ]
        }
      ],
      link: {
        type: "doc",
        id: "api/act/src/index"
      }
    },
    {
      type: "category",
      label: "act/src/testing",
      items: [
        {
          type: "category",
          label: "Functions",
          items: [
            {
              type: "doc",
              id: "api/act/src/testing/functions/settle",
              label: "settle"
            },
            {
              type: "doc",
              id: "api/act/src/testing/functions/storeConformance",
              label: "storeConformance"
            }
          ]
        },
        {
          type: "category",
          label: "Classes",
          items: [
            {
              type: "doc",
              id: "api/act/src/testing/classes/SettleError",
              label: "SettleError"
            }
          ]
        },
        {
          type: "category",
          label: "Type Aliases",
          items: [
            {
              type: "doc",
              id: "api/act/src/testing/type-aliases/Settled",
              label: "Settled"
            },
            {
              type: "doc",
              id: "api/act/src/testing/type-aliases/SettleOptions",
              label: "SettleOptions"
            },
            {
              type: "doc",
              id: "api/act/src/testing/type-aliases/SettleReason",
              label: "SettleReason"
            },
            {
              type: "doc",
              id: "api/act/src/testing/type-aliases/TestApi",
              label: "TestApi"
            }
          ]
        }
      ],
      link: {
        type: "doc",
        id: "api/act/src/testing/index"
      }
    },
    {
      type: "category",
      label: "inspector/src",
      items: [
        {
          type: "category",
          label: "Functions",
          items: [
            {
              type: "doc",
              id: "api/inspector/src/functions/inspect",
              label: "inspect"
            }
          ]
        },
        {
          type: "category",
          label: "Classes",
          items: [
            {
              type: "doc",
              id: "api/inspector/src/classes/PgCatalog",
              label: "PgCatalog"
            },
            {
              type: "doc",
              id: "api/inspector/src/classes/SqliteCatalog",
              label: "SqliteCatalog"
            },
            {
              type: "doc",
              id: "api/inspector/src/classes/StoreCatalog",
              label: "StoreCatalog"
            }
          ]
        },
        {
          type: "category",
          label: "Interfaces",
          items: [
            {
              type: "doc",
              id: "api/inspector/src/interfaces/Catalog",
              label: "Catalog"
            }
          ]
        },
        {
          type: "category",
          label: "Type Aliases",
          items: [
            {
              type: "doc",
              id: "api/inspector/src/type-aliases/InspectOptions",
              label: "InspectOptions"
            },
            {
              type: "doc",
              id: "api/inspector/src/type-aliases/PgCatalogConfig",
              label: "PgCatalogConfig"
            },
            {
              type: "doc",
              id: "api/inspector/src/type-aliases/RunningServer",
              label: "RunningServer"
            },
            {
              type: "doc",
              id: "api/inspector/src/type-aliases/StreamPage",
              label: "StreamPage"
            },
            {
              type: "doc",
              id: "api/inspector/src/type-aliases/StreamSummary",
              label: "StreamSummary"
            }
          ]
        }
      ],
      link: {
        type: "doc",
        id: "api/inspector/src/index"
      }
    }
  ]
};
module.exports = typedocSidebar.items;