# common/: small pieces that pvmd and libpvm both compile in (headers
# only so far), included by folder: #include "common/clock.h".
noinst_HEADERS += common/clock.h
