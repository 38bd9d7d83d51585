# Which OpenSM libftroute.so is built for (included by the top-level CMakeLists.txt).
#
#   -DOPENSM_PREFIX=PREFIX   an OpenSM installed in PREFIX (scripts/build-opensm.sh VERSION PREFIX,
#                            or any `./configure --prefix=PREFIX && make install` of upstream
#                            OpenSM): headers PREFIX/include/infiniband, the integration tests run
#                            PREFIX/sbin/opensm. A PREFIX without the headers is a configure error.
#   -DOPENSM_INCLUDE_DIR=DIR the directory holding opensm/osm_event_plugin.h (e.g. a source tree's
#                            include/ after ./configure); without it the system's libopensm-dev
#                            (/usr/include/infiniband). Given but without the headers: an error.
# Sets OPENSM_INCLUDE_DIR (empty: no plugin), FTROUTE_OPENSM_VERSION (from osm_version.h,
# "3.3.23"), FTROUTE_OPENSM (the opensm the tests run: PREFIX/sbin/opensm, else "opensm" from
# PATH) and FTROUTE_OPENSM_PACKAGE_SUFFIX ("+opensm3.3.23", for the package versions).
set(OPENSM_PREFIX "" CACHE PATH "OpenSM install prefix to build the plugin against (empty: the system's libopensm-dev)")
set(FTROUTE_OPENSM_VERSION "")
set(FTROUTE_OPENSM "opensm")
if(FTROUTE_BUILD_PLUGIN)
  set(_hdr opensm/osm_event_plugin.h)
  if(OPENSM_PREFIX)
    if(NOT EXISTS "${OPENSM_PREFIX}/include/infiniband/${_hdr}")
      message(FATAL_ERROR "OPENSM_PREFIX=${OPENSM_PREFIX} holds no OpenSM headers "
        "(${OPENSM_PREFIX}/include/infiniband/${_hdr} is missing): build OpenSM there first with "
        "scripts/build-opensm.sh VERSION ${OPENSM_PREFIX}, or configure with -DFTROUTE_BUILD_PLUGIN=OFF")
    endif()
    if(NOT EXISTS "${OPENSM_PREFIX}/sbin/opensm")
      message(FATAL_ERROR "OPENSM_PREFIX=${OPENSM_PREFIX} has OpenSM headers but no sbin/opensm (incomplete install)")
    endif()
    # a normal variable: it shadows a cached OPENSM_INCLUDE_DIR from an earlier configure
    set(OPENSM_INCLUDE_DIR "${OPENSM_PREFIX}/include/infiniband")
    set(FTROUTE_OPENSM "${OPENSM_PREFIX}/sbin/opensm")
  else()
    if(OPENSM_INCLUDE_DIR AND NOT EXISTS "${OPENSM_INCLUDE_DIR}/${_hdr}")
      message(FATAL_ERROR "OPENSM_INCLUDE_DIR=${OPENSM_INCLUDE_DIR} holds no ${_hdr}: point it at the "
        "directory above opensm/ (e.g. PREFIX/include/infiniband), or use -DOPENSM_PREFIX=PREFIX")
    endif()
    find_path(OPENSM_INCLUDE_DIR ${_hdr} PATHS /usr/include/infiniband NO_DEFAULT_PATH)
    find_path(OPENSM_INCLUDE_DIR ${_hdr} PATH_SUFFIXES infiniband)
  endif()
  if(OPENSM_INCLUDE_DIR)
    file(STRINGS "${OPENSM_INCLUDE_DIR}/opensm/osm_version.h" _osmv REGEX "^#define OSM_VERSION ")
    if(_osmv MATCHES "\"OpenSM ([^\"]+)\"")
      set(FTROUTE_OPENSM_VERSION "${CMAKE_MATCH_1}")
    else()
      message(FATAL_ERROR "${OPENSM_INCLUDE_DIR}/opensm/osm_version.h: no '#define OSM_VERSION \"OpenSM x.y.z\"'")
    endif()
    message(STATUS "libftroute.so is built for OpenSM ${FTROUTE_OPENSM_VERSION} (headers ${OPENSM_INCLUDE_DIR}, tests run ${FTROUTE_OPENSM})")
  endif()
endif()
if(FTROUTE_OPENSM_VERSION)
  set(FTROUTE_OPENSM_PACKAGE_SUFFIX "+opensm${FTROUTE_OPENSM_VERSION}")
else()
  set(FTROUTE_OPENSM_PACKAGE_SUFFIX "")
endif()
