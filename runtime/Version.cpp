//===- Version.cpp - the version of the linked library --------------------===//

#include "tgc/tgc.h"

const char *tgc::libraryVersion() { return TGC_VERSION; }
