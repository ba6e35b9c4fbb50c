// The type-specific fields of a record, as ObjectSpace.dump writes them for each type.
#include <ruby/encoding.h>
#include <ruby/io.h>

#include <cmath>
#include <cstdio>

#include "heap_dumper.h"
#include "ruby_compat.h"
#include "vm_internals.h"

namespace memprof {

namespace {

// FNV-1a, 64 bits, of a String's whole bytes, as 16 hex digits (schemas/memprof-dump.schema.json:
// value_hash); never all zeros, which readers take for no hash.
std::string_view ValueHash(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  if (h == 0) h = 1;
  static thread_local char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return {hex, 16};
}

}  // namespace

std::string_view QuotedTypeName(int type) {
  switch (type) {
    case T_NONE:
      return "\"NONE\"";
    case T_OBJECT:
      return "\"OBJECT\"";
    case T_CLASS:
      return "\"CLASS\"";
    case T_MODULE:
      return "\"MODULE\"";
    case T_FLOAT:
      return "\"FLOAT\"";
    case T_STRING:
      return "\"STRING\"";
    case T_REGEXP:
      return "\"REGEXP\"";
    case T_ARRAY:
      return "\"ARRAY\"";
    case T_HASH:
      return "\"HASH\"";
    case T_STRUCT:
      return "\"STRUCT\"";
    case T_BIGNUM:
      return "\"BIGNUM\"";
    case T_FILE:
      return "\"FILE\"";
    case T_DATA:
      return "\"DATA\"";
    case T_MATCH:
      return "\"MATCH\"";
    case T_COMPLEX:
      return "\"COMPLEX\"";
    case T_RATIONAL:
      return "\"RATIONAL\"";
    case T_NIL:
      return "\"NIL\"";
    case T_TRUE:
      return "\"TRUE\"";
    case T_FALSE:
      return "\"FALSE\"";
    case T_SYMBOL:
      return "\"SYMBOL\"";
    case T_FIXNUM:
      return "\"FIXNUM\"";
    case T_UNDEF:
      return "\"UNDEF\"";
    case T_IMEMO:
      return "\"IMEMO\"";
    case T_NODE:
      return "\"NODE\"";
    case T_ICLASS:
      return "\"ICLASS\"";
    case T_ZOMBIE:
      return "\"ZOMBIE\"";
    case T_MOVED:
      return "\"MOVED\"";
    default:
      return "\"UNKNOWN\"";
  }
}

void HeapDumper::WriteTypeFields(VALUE obj, int type, VALUE klass) {
  (void)klass;
  switch (type) {
    case T_STRING:
      WriteStringFields(obj);
      break;
    case T_SYMBOL: {
      VALUE name = rb_sym2str(obj);
      if (RB_TYPE_P(name, T_STRING)) {
        sink_.Key("bytesize");
        sink_.Unsigned(static_cast<uint64_t>(RSTRING_LEN(name)));
        sink_.Key("value");
        sink_.String({RSTRING_PTR(name), static_cast<size_t>(RSTRING_LEN(name))});
      }
      break;
    }
    case T_FLOAT: {  // as ObjectSpace writes it: "%#g", NaN, Inf and -Inf spelled its way
      const double value = RFLOAT_VALUE(obj);
      char text[64];
      int n = std::isnan(value)   ? std::snprintf(text, sizeof(text), "NaN")
              : std::isinf(value) ? std::snprintf(text, sizeof(text), value < 0 ? "-Inf" : "Inf")
                                  : std::snprintf(text, sizeof(text), "%#g", value);
      sink_.Key("value");
      sink_.String({text, static_cast<size_t>(n)});
      break;
    }
    case T_CLASS:
    case T_MODULE:
    case T_ICLASS:
      WriteClassFields(obj, type);
      break;
    case T_OBJECT:
      if (compat::kShapes && FL_TEST_RAW(obj, ROBJECT_EMBED)) {
        sink_.Key("embedded");
        sink_.Bool(true);
      }
      sink_.Key("ivars");
      sink_.Unsigned(ObjectIvarCount(obj));
      if (compat::kShapes && compat::ShapeTooComplex(compat::ShapeId(obj))) {
        sink_.Key("too_complex_shape");
        sink_.Bool(true);
      }
      break;
    case T_HASH: {
      sink_.Key("size");
      sink_.Unsigned(RHASH_SIZE(obj));
      // As ObjectSpace: the default proc (Hash.new { }); a default value (Hash.new([])) is a
      // reference named "(default)", no field of its own.
      if (VALUE proc = compat::HashDefaultProc(obj)) {
        sink_.Key("default");
        sink_.Address(proc);
      }
      break;
    }
    case T_ARRAY:
      sink_.Key("length");
      sink_.Unsigned(static_cast<uint64_t>(RARRAY_LEN(obj)));
      // 3.3's ObjectSpace says shared of non-empty Arrays only.
      if (compat::ArrayShared(obj) && (!compat::kShapes || RARRAY_LEN(obj) > 0)) {
        sink_.Key("shared");
        sink_.Bool(true);
      }
      if (FL_TEST_RAW(obj, RARRAY_EMBED_FLAG)) {
        sink_.Key("embedded");
        sink_.Bool(true);
      }
      break;
    case T_DATA: {
      if (const char* name = rb_objspace_data_type_name(obj)) {
        sink_.Key("struct");
        sink_.String(name);
      }
      if (memprof_block_site block; memprof_proc_block_site(obj, &block)) {
        // Where the block is written: a Proc's own site is where it became a Proc (often
        // inside a framework's subscribe or define_method).
        sink_.Key("block");
        sink_.MapOpen();
        sink_.Key("file");
        sink_.String({block.path, static_cast<size_t>(block.path_len)});
        sink_.Key("line");
        sink_.Signed(block.line);
        if (block.label != nullptr) {
          sink_.Key("method");
          sink_.String({block.label, static_cast<size_t>(block.label_len)});
        }
        sink_.MapClose();
      }
      break;
    }
    case T_FILE:
      if (rb_io_t* fptr = RFILE(obj)->fptr) {
        sink_.Key("fd");
        sink_.Signed(IoDescriptor(fptr));
      }
      break;
    case T_IMEMO:
      WriteImemoFields(obj);
      break;
    default:
      break;
  }
}

void HeapDumper::WriteImemoFields(VALUE obj) {
  const int type = ImemoType(obj);
  sink_.Key("imemo_type");
  sink_.String(rb_imemo_name(type));
  if (compat::IsCallinfo(type)) {
    if (ID mid = compat::CallinfoMethodId(obj)) {
      sink_.Key("mid");
      WriteId(mid);
    }
  } else if (compat::IsCallcache(type)) {
    ID called_id;
    VALUE receiver_class;
    if (compat::CallcacheEntry(obj, &called_id, &receiver_class)) {
      sink_.Key("called_id");
      WriteId(called_id);
      sink_.Key("receiver_class");
      sink_.Address(receiver_class);
    }
  }
}

// An ID as ObjectSpace writes it: its name, or ID_INTERNAL(serial) for one that has none.
void HeapDumper::WriteId(ID id) {
  if (const char* name = rb_id2name(id)) {
    sink_.String(name);
    return;
  }
  constexpr int kIdScopeShift = 4;  // symbol.h's ID_SCOPE_SHIFT: an ID's serial is above it
  char text[48];
  int n = std::snprintf(text, sizeof text, "ID_INTERNAL(%llu)",
                        static_cast<unsigned long long>(id >> kIdScopeShift));
  sink_.String({text, static_cast<size_t>(n)});
}

// shape_id and slot_size, which ObjectSpace writes for every object from 3.3 on.
void HeapDumper::WriteSlotFields(VALUE obj) {
  if (!compat::kShapes) return;
  sink_.Key("shape_id");
  sink_.Unsigned(compat::ShapeId(obj));
  const size_t slot_size = slot_size_ != 0 ? slot_size_ : compat::SlotSize(obj);
  if (slot_size != 0) {
    sink_.Key("slot_size");
    sink_.Unsigned(slot_size);
  }
}

void HeapDumper::WriteStringFields(VALUE obj) {
  bool embedded = !FL_TEST_RAW(obj, RSTRING_NOEMBED);
  bool shared = compat::StringShared(obj);
  if (embedded) {
    sink_.Key("embedded");
    sink_.Bool(true);
  }
  if (compat::StringChilled(obj)) {
    sink_.Key("chilled");
    sink_.Bool(true);
  }
  // ENCODING_INLINE_MAX (127) means the index is kept elsewhere: ask Ruby (no allocation).
  int encoding = RB_ENCODING_GET_INLINED(obj);
  if (encoding == RUBY_ENCODING_INLINE_MAX) encoding = rb_enc_get_index(obj);
  rb_encoding* enc = encoding >= 0 ? rb_enc_from_index(encoding) : nullptr;
  const int coderange = compat::StringCoderange(obj);
  bool ascii_only = coderange == ENC_CODERANGE_7BIT && enc != nullptr && rb_enc_asciicompat(enc);
  if (compat::kShapes) {
    sink_.Key("coderange");
    sink_.Utf8String(compat::CoderangeName(coderange));
  }
  if (coderange == ENC_CODERANGE_BROKEN) {
    sink_.Key("broken");
    sink_.Bool(true);
  }
  if (FL_TEST_RAW(obj, RSTRING_FSTR)) {
    sink_.Key("fstring");
    sink_.Bool(true);
  }
  if (shared) {
    sink_.Key("shared");
    sink_.Bool(true);
  }
  long len = RSTRING_LEN(obj);
  sink_.Key("bytesize");
  sink_.Unsigned(static_cast<uint64_t>(len));
  if (!embedded && !shared && static_cast<long>(rb_str_capacity(obj)) != len) {
    sink_.Key("capacity");
    sink_.Unsigned(rb_str_capacity(obj));
  }
  if (options_.string_limit >= 0) {
    const char* bytes = RSTRING_PTR(obj);
    size_t cut = static_cast<size_t>(len);
    if (cut > static_cast<size_t>(options_.string_limit)) {
      cut = static_cast<size_t>(options_.string_limit);
      // Back off to a character boundary of the string's own encoding (bytes of binary
      // strings and single-byte encodings are all boundaries), by less than one character:
      // a run of broken bytes is cut where the limit says.
      if (enc != nullptr) {
        size_t head = static_cast<size_t>(
            rb_enc_left_char_head(bytes, bytes + cut, bytes + len, enc) - bytes);
        if (cut - head < static_cast<size_t>(rb_enc_mbmaxlen(enc))) cut = head;
      }
    }
    sink_.Key("value");
    if (ascii_only && cut == static_cast<size_t>(len)) {
      sink_.Utf8String({bytes, cut});  // Ruby already knows it is ASCII: skip our check
    } else {
      sink_.String({bytes, cut});
    }
    // A cut value's hash tells copies of one long value from values that only begin alike.
    if (cut < static_cast<size_t>(len)) {
      sink_.Key("value_hash");
      sink_.Utf8String(ValueHash({bytes, static_cast<size_t>(len)}));
    }
  }
  if (encoding > 0 && enc != nullptr) {
    sink_.Key("encoding");
    sink_.String(rb_enc_name(enc));
  }
}

void HeapDumper::WriteClassFields(VALUE obj, int type) {
  if (type == T_CLASS && compat::kShapes) {
    if (int count = compat::ClassVariationCount(obj); count >= 0) {
      sink_.Key("variation_count");
      sink_.Unsigned(static_cast<uint64_t>(count));
    }
  }
  if (VALUE super = rb_class_get_superclass(obj)) {  // raw: an include's proxy, as ObjectSpace
    sink_.Key("superclass");
    sink_.Address(super);
  }
  if (type == T_ICLASS) return;
  std::string_view name = ClassNames::CachedPath(obj);
  if (!name.empty()) {
    sink_.Key("name");
    sink_.String(name);
  } else {
    VALUE real = rb_class_real(obj);
    std::string_view real_name = ClassNames::IsClassLike(real) ? ClassNames::CachedPath(real) : "";
    if (!real_name.empty()) {
      sink_.Key("real_class_name");
      sink_.String(real_name);
    }
  }
  if (FL_TEST_RAW(obj, FL_SINGLETON)) {
    sink_.Key("singleton");
    sink_.Bool(true);
  }
}

}  // namespace memprof
