# An upload handler registers a finalizer per request on the process's long-lived upload store,
# meaning to delete each temporary file when the store goes away. The store lives as long as
# the process, and the finalizer table keeps every block given to ObjectSpace.define_finalizer
# until its object is collected: one more block (and the request env it captured) per request.
#
# Leak: Procs, made in UploadStore.cleanup (the "# leak:" line), one per request, held by the
# finalizer table's Array of the store's finalizers, which a GC root holds (no object of the
# dump, and no reference of the store):
#   ROOT(finalizers) -> (hidden Array) [N] -> Proc -> IMEMO:env -> Hash (the env)
# memprof names the table's entry for its object ("finalizers of UploadStore"); an
# ObjectSpace dump only says ROOT(finalizers).
# The line to change is the define_finalizer call: delete the file when the request ends.
# Not a leak: each request's response String is garbage.
#
#   ruby samples/finalizer_per_request.rb OUTDIR [--memprof] [--requests N]   (see three_dumps.rb)
require_relative "three_dumps"

class UploadStore
  def track(path, env)
    ObjectSpace.define_finalizer(self, UploadStore.cleanup(path, env))
  end

  # A class method: the block must not capture the store itself.
  def self.cleanup(path, env)
    proc { File.delete(path) if env && File.exist?(path) } # leak: Proc
  end
end

UPLOADS = UploadStore.new

def handle_request(i)
  env = { "id" => i, "PATH_INFO" => "/uploads/#{i}" }
  UPLOADS.track("/nonexistent/upload-#{i}", env)
  "HTTP/1.1 204 No Content\r\n\r\n".dup
end

ThreeDumps.run("finalizer_per_request", requests: 300) { |i| handle_request(i) }
