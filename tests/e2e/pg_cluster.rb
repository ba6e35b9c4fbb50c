# A PostgreSQL cluster of the test file's own (scripts/pg-cluster), started when required and
# stopped by stop_pg_cluster; the file is skipped (ctest's SKIP_RETURN_CODE) where none can start.
require_relative "helper"
require "fileutils"

# PostgreSQL's programs run without the sanitizer runtime an ASan build preloads for Ruby.
PG_ENV = { "LD_PRELOAD" => nil, "ASAN_OPTIONS" => nil, "UBSAN_OPTIONS" => nil }.freeze
PG_DIR = Dir.mktmpdir("heapq-pg")
PG_URL, pg_err, pg_status = Open3.capture3(PG_ENV, "sh", File.join(E2E::SOURCE_DIR, "scripts/pg-cluster"),
                                           "start", PG_DIR)
unless pg_status.success?
  warn "SKIPPED: no PostgreSQL cluster could start here (#{pg_err.strip}): " \
       "the server store's tests did not run"
  FileUtils.rm_rf(PG_DIR)
  exit 77  # ctest's SKIP_RETURN_CODE
end
PG_URL.strip!

# For the test case's shutdown.
def stop_pg_cluster
  Open3.capture3(PG_ENV, "sh", File.join(E2E::SOURCE_DIR, "scripts/pg-cluster"), "stop", PG_DIR)
  FileUtils.rm_rf(PG_DIR)
end
