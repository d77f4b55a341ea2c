// TypeDoc plugin loaded by docusaurus-plugin-typedoc (see docusaurus.config.ts).
//
// docusaurus-plugin-typedoc converts and renders but never runs TypeDoc's
// validation, and when conversion fails it returns quietly, leaving the
// build to go on without (or with stale) API pages. This plugin makes both
// fatal, so an undocumented export, a broken {@link} or a compiler error in
// the packages fails `npm run build` and `npm test` instead of the reader.
// In watch mode (`npm start`) problems are logged and the server keeps going.
import { Application } from "typedoc";

/** @param {import("typedoc").Application} app */
export function load(app) {
  const watching = () => app.options.getValue("watch");
  const fail = (message) => {
    if (watching()) app.logger.error(message);
    else throw new Error(`[typedoc-strict] ${message}`);
  };

  const convert = app.convert.bind(app);
  app.convert = async () => {
    const project = await convert();
    if (!project) fail("TypeDoc could not convert the packages; see the errors above.");
    return project;
  };

  // Same rule as TypeDoc's own CLI: validation warnings (and comment warnings
  // raised while converting) count as errors when
  // treatValidationWarningsAsErrors is set.
  app.on(Application.EVENT_GENERATE_OUTPUTS_BEGIN, (project) => {
    const { logger, options } = app;
    const fromConversion = logger.validationWarningCount;
    const [errors, warnings] = [logger.errorCount, logger.warningCount];
    app.validate(project);
    const newErrors = logger.errorCount - errors;
    const newWarnings = logger.warningCount - warnings + fromConversion;
    const strict = options.getValue("treatValidationWarningsAsErrors") || options.getValue("treatWarningsAsErrors");
    const found = newErrors + (strict ? newWarnings : 0);
    if (found > 0) {
      fail(
        `API validation failed: ${found} problem(s) above (undocumented exports, unexported types or broken {@link}s).`
      );
    }
  });
}
