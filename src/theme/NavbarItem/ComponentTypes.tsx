// Ejected: only the navbar item types this site's navbar uses, so the others (doc and HTML items) stay out of every page's code; an item of a type left out fails the build with the theme's own error naming the type.
import type { ComponentTypesObject } from "@theme/NavbarItem/ComponentTypes";
import DefaultNavbarItem from "@theme/NavbarItem/DefaultNavbarItem";
import DocSidebarNavbarItem from "@theme/NavbarItem/DocSidebarNavbarItem";
import DocsVersionDropdownNavbarItem from "@theme/NavbarItem/DocsVersionDropdownNavbarItem";
import DropdownNavbarItem from "@theme/NavbarItem/DropdownNavbarItem";
import LocaleDropdownNavbarItem from "@theme/NavbarItem/LocaleDropdownNavbarItem";
import SearchNavbarItem from "@theme/NavbarItem/SearchNavbarItem";

const ComponentTypes = {
  default: DefaultNavbarItem,
  localeDropdown: LocaleDropdownNavbarItem,
  search: SearchNavbarItem,
  dropdown: DropdownNavbarItem,
  docSidebar: DocSidebarNavbarItem,
  docsVersionDropdown: DocsVersionDropdownNavbarItem,
} satisfies Partial<ComponentTypesObject>;

export default ComponentTypes as unknown as ComponentTypesObject;
