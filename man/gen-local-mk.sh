#!/bin/sh
# gen-local-mk.sh - rewrites man/local.mk from the pages in man/man3/
# (run it after adding or removing a page; automake needs the list).
cd "$(dirname "$0")" || exit 1
{
	echo "# man/: the API reference, a section 3 page for every name libpvm3"
	echo "# and libgpvm3 export (man/gen-local-mk.sh writes this list).  A page"
	echo "# that documents several names is the main one's; the others are"
	echo "# one-line .so links to it.  The commands' pages are beside them"
	echo "# (console/pvm.1, pvmd/pvmd.1...)."
	echo "EXTRA_DIST += man/gen-local-mk.sh"
	printf 'dist_man3_MANS +='
	for f in man3/*.3; do printf ' \\\n\tman/%s' "$f"; done
	echo
} >local.mk
