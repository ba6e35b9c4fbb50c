// Checks JSON output against the schemas of schemas/ (which refer to one another).
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/schema.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

namespace heapq {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Resolves "input.schema.json#" and friends from the schemas/ folder.
class SchemaFolder : public rapidjson::IRemoteSchemaDocumentProvider {
 public:
  const rapidjson::SchemaDocument* GetRemoteDocument(const char* uri,
                                                     rapidjson::SizeType length) override {
    // rapidjson 1.1 passes the URI one character short ("input.schema.jso"): match a prefix.
    std::string name(uri, length);
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(HEAPQ_SOURCE_DIR) + "/schemas"))
      if (std::string file = entry.path().filename().string();
          file.starts_with(name) && file.size() <= name.size() + 1)
        name = file;
    auto& doc = docs_[name];
    if (!doc) {
      auto& json = json_[name];  // a SchemaDocument points into its JSON: keep both
      json = std::make_unique<rapidjson::Document>();
      json->Parse(read_file(std::string(HEAPQ_SOURCE_DIR) + "/schemas/" + name).c_str());
      doc = std::make_unique<rapidjson::SchemaDocument>(*json);
    }
    return doc.get();
  }

 private:
  std::map<std::string, std::unique_ptr<rapidjson::Document>> json_;
  std::map<std::string, std::unique_ptr<rapidjson::SchemaDocument>> docs_;
};

inline bool valid(const std::string& json, const std::string& schema_name,
                  std::string* where = nullptr) {
  rapidjson::Document schema_json;
  schema_json.Parse(read_file(std::string(HEAPQ_SOURCE_DIR) + "/schemas/" + schema_name).c_str());
  EXPECT_FALSE(schema_json.HasParseError()) << schema_name;
  SchemaFolder folder;
  rapidjson::SchemaDocument schema(schema_json, &folder);
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  EXPECT_FALSE(doc.HasParseError()) << json;
  rapidjson::SchemaValidator validator(schema);
  bool ok = doc.Accept(validator);
  if (where && !ok) *where = validator.GetInvalidSchemaKeyword();
  return ok;
}

inline void expect_valid(const std::string& json, const std::string& schema_name) {
  std::string where;
  EXPECT_TRUE(valid(json, schema_name, &where)) << schema_name << ": invalid at " << where;
}

}  // namespace heapq
