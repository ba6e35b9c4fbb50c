// SHAPE records: one per object shape (Ruby 3.3+), as ObjectSpace.dump_all writes them.
#include "heap_dumper.h"
#include "ruby_compat.h"

namespace memprof {

void HeapDumper::WriteShapes() {
  compat::EachShape(
      [](const compat::Shape& shape, void* data) {
        auto* self = static_cast<HeapDumper*>(data);
        JsonSink& sink = self->sink_;
        if (sink.Errno() != 0) return;
        sink.BeginRecord();
        sink.Key("address");
        sink.Address(shape.address);
        sink.Key("type");
        sink.String("SHAPE");
        sink.Key("id");
        sink.Unsigned(shape.id);
        if (shape.type != "ROOT") {
          sink.Key("parent_id");
          sink.Unsigned(shape.parent_id);
        }
        sink.Key("depth");
        sink.Unsigned(shape.depth);
        sink.Key("shape_type");
        sink.Utf8String(shape.type);
        if (shape.edge_name != 0) {
          sink.Key("edge_name");
          self->WriteId(shape.edge_name);
        }
        sink.Key("edges");
        sink.Unsigned(shape.edges);
        sink.Key("memsize");
        sink.Unsigned(shape.memsize);
        sink.EndRecord();
      },
      this);
}

}  // namespace memprof
