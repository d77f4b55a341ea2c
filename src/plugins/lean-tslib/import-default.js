// tslib's __importDefault, the one helper @docusaurus/utils-common takes
// from tslib in the browser (see ./index.ts); the same code as tslib's.
export function __importDefault(mod) {
  return mod?.__esModule ? mod : { default: mod };
}
