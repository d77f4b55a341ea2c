// Registers the site's extra Prism languages (themeConfig.prism
// .additionalLanguages) once, before the first code block renders.
import { Prism } from "prism-react-renderer";
import prismIncludeLanguages from "@theme/prism-include-languages";

prismIncludeLanguages(Prism);
