/*
 * version.h - what every command prints for --version: the project's own
 * name and version (configure's AC_INIT) and the PVM API level it
 * implements (pvm3.h's PVM_VER, which pvm_version() returns).
 */
#ifndef COMMON_VERSION_H
#define COMMON_VERSION_H

#include "config.h"
#include "pvm3.h"

#define PVM_VERSION_TEXT(prog)                                                 \
	prog " (" PACKAGE_NAME ") " PACKAGE_VERSION "\n"                       \
	     "PVM API " PVM_VER "\n"                                           \
	     "License: MIT\n"

#endif
