# Script mode (cmake -DSRC=DIR -DOUT=FILE -P CrawlsimCommit.cmake), run at every build: writes
# the source tree's commit (12 hex digits, "+dirty" with uncommitted changes to tracked files,
# "unknown" outside a git checkout) to OUT when it changed, so that tools running a built
# crawlsim (tools/sync-study) record the commit the binary was built from, not the one checked
# out when they run.
execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no
    OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    string(APPEND commit "+dirty")
  endif()
endif()
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL "${commit}\n")
  file(WRITE "${OUT}" "${commit}\n")
endif()
