# Registers every doctest test case of a test binary as a ctest test, labelled
# by the tests/ folder its file is in (tests/sim/<any>/ counts as "sim") and by
# its doctest TEST_SUITE, if any (e.g. "validation"). Run after each link of
# the binary (tests/CMakeLists.txt); one `--list-test-cases --reporters=xml`
# gives each test case's name, suite and file at once.
#
#   cmake -D EXE=<binary> -D OUT=<ctest file> -D FOLDERS=<a|b|...> -D WORKING_DIR=<dir>
#         -D ENVIRONMENT=<VAR=value> -P discover.cmake
cmake_minimum_required(VERSION 3.20)

execute_process(COMMAND "${EXE}" --list-test-cases --reporters=xml
                OUTPUT_VARIABLE xml RESULT_VARIABLE rc WORKING_DIRECTORY "${WORKING_DIR}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "listing the test cases of ${EXE} failed (${rc}):\n${xml}")
endif()

string(REPLACE "|" ";" folders "${FOLDERS}")

function(unescape_xml var text)
  string(REPLACE "@SEMICOLON@" ";" text "${text}")
  string(REPLACE "&lt;" "<" text "${text}")
  string(REPLACE "&gt;" ">" text "${text}")
  string(REPLACE "&quot;" "\"" text "${text}")
  string(REPLACE "&apos;" "'" text "${text}")
  string(REPLACE "&amp;" "&" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()

set(script "")
set(count 0)
# A semicolon (of an entity such as &amp;) would split CMake's list of matches.
string(REPLACE ";" "@SEMICOLON@" xml "${xml}")
string(REGEX MATCHALL "<TestCase [^>]*/>" cases "${xml}")
foreach(case IN LISTS cases)
  string(REGEX MATCH " name=\"([^\"]*)\"" _ "${case}")
  unescape_xml(name "${CMAKE_MATCH_1}")
  string(REGEX MATCH " testsuite=\"([^\"]*)\"" _ "${case}")
  unescape_xml(suite "${CMAKE_MATCH_1}")
  string(REGEX MATCH " filename=\"([^\"]*)\"" _ "${case}")
  unescape_xml(file "${CMAKE_MATCH_1}")
  # The folder: the first of tests/<folder>/ in the file's path that is one
  # (the path is absolute, or relative where ccache rewrote it).
  set(folder "")
  foreach(f IN LISTS folders)
    if(file MATCHES "(^|/)tests/${f}/")
      set(folder "${f}")
      break()
    endif()
  endforeach()
  if(folder STREQUAL "")
    message(FATAL_ERROR "test case '${name}' is in ${file}, outside the folders of tests/ (${FOLDERS})")
  endif()
  set(labels "${folder}")
  if(NOT suite STREQUAL "" AND NOT suite STREQUAL folder)
    list(APPEND labels "${suite}")
  endif()
  # doctest reads --test-case as a comma-separated list of patterns.
  string(REPLACE "," "\\," filter "${name}")
  string(APPEND script
    "add_test([==[${name}]==] [==[${EXE}]==] [==[--test-case=${filter}]==])\n"
    "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKING_DIR}]==]"
    " ENVIRONMENT [==[${ENVIRONMENT}]==] LABELS [==[${labels}]==])\n")
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${EXE} lists no test cases:\n${xml}")
endif()
file(WRITE "${OUT}" "${script}")
