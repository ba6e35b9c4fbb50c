// GraphBuilder makes a graph from typed operations, and refuses what would make an inconsistent
// one (ids out of range, objects or references out of order), as a damaged store would give.
#include "heapq/model/graph_builder.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace heapq {
namespace {

// Two classes, a site, and three objects of class 0 (the last one at the site).
GraphBuilder three_objects(GraphBuilder::Addresses addresses = GraphBuilder::Addresses::kAsGiven) {
  GraphBuilder b({}, addresses);
  b.add_class({0x100, ObjectId::none(), b.intern("Foo")});
  b.add_class({0x200, ObjectId::none(), b.intern("Bar")});
  EXPECT_TRUE(b.add_site({b.intern("app.rb"), 3, StringId::none()}).ok());
  std::vector<ObjectFields> objects(3);
  for (uint32_t i = 0; i < 3; ++i) {
    objects[i].address = 0x1000 + 40 * i;
    objects[i].memsize = 40;
    objects[i].class_id = ClassId(0);
    objects[i].type = ObjectType::kObject;
  }
  objects[2].site = SiteId(0);
  EXPECT_TRUE(b.add_objects(objects).ok());
  return b;
}

ReferenceBlock block(uint32_t first, std::vector<uint32_t> begin, std::vector<uint32_t> targets) {
  ReferenceBlock r;
  r.first = ObjectId(first);
  r.begin = std::move(begin);
  r.targets = std::move(targets);
  return r;
}

TEST(GraphBuilder, MakesTheGraphItIsGiven) {
  GraphBuilder b = three_objects();
  ASSERT_TRUE(b.add_references(block(0, {0, 2}, {1, 2})).ok());
  ASSERT_TRUE(b.add_references(block(2, {0, 1}, {0})).ok());  // object 1 has none
  ASSERT_TRUE(b.add_root({b.intern("vm"), ObjectId(0), StringId::none()}).ok());
  ASSERT_TRUE(b.add_weak_holder(ObjectId(1)).ok());
  auto built = b.build();
  ASSERT_TRUE(built.ok()) << built.error().message;
  const HeapGraph& g = built.value();
  EXPECT_EQ(g.object_count(), 3u);
  EXPECT_EQ(g.edge_count(), 4u);
  EXPECT_EQ(g.references(ObjectId(0)).size(), 2u);
  EXPECT_EQ(g.references(ObjectId(1)).size(), 0u);
  EXPECT_EQ(g.references(ObjectId(2))[0], ObjectId(0));
  EXPECT_EQ(g.references(g.virtual_root())[0], ObjectId(0));
  EXPECT_EQ(g.site(ObjectId(2)), SiteId(0));
  EXPECT_FALSE(g.site(ObjectId(0)).valid());
  EXPECT_TRUE(g.holds_weakly(ObjectId(1)));
  EXPECT_EQ(g.find(0x1028), ObjectId(1));
  EXPECT_EQ(g.class_name(g.class_of(ObjectId(1))), "Foo");
}

TEST(GraphBuilder, RefusesWhatWouldNotHold) {
  GraphBuilder b = three_objects();
  EXPECT_FALSE(b.add_references(block(0, {0, 1}, {3})).ok());        // no object 3
  EXPECT_FALSE(b.add_references(block(0, {0, 2, 1}, {1})).ok());     // begins go back
  EXPECT_FALSE(b.add_references(block(2, {0, 1, 2}, {1, 2})).ok());  // past the last object
  ASSERT_TRUE(b.add_references(block(1, {0, 1}, {2})).ok());
  EXPECT_FALSE(b.add_references(block(0, {0, 1}, {2})).ok());  // out of id order
  std::vector<ObjectFields> late(1);
  late[0].class_id = ClassId(0);
  EXPECT_FALSE(b.add_objects(late).ok());  // objects after references
  EXPECT_FALSE(b.add_root({b.intern("vm"), ObjectId(7), StringId::none()}).ok());
  EXPECT_FALSE(b.add_block_site(ObjectId(0), SiteId(1)).ok());
  EXPECT_FALSE(b.add_stack(1, std::vector<SiteId>{SiteId(4)}).ok());
  EXPECT_FALSE(b.set_class(ClassId(2), {}).ok());
  b.add_class({0x300, ObjectId(9), b.intern("Baz")});  // its object does not exist
  EXPECT_FALSE(b.build().ok());
}

TEST(GraphBuilder, RefusesAnObjectOfAClassOrSiteNotAdded) {
  GraphBuilder b = three_objects();
  std::vector<ObjectFields> objects(1);
  objects[0].class_id = ClassId(5);
  EXPECT_FALSE(b.add_objects(objects).ok());
  objects[0].class_id = ClassId(1);
  objects[0].site = SiteId(1);
  EXPECT_FALSE(b.add_objects(objects).ok());
  objects[0].site = SiteId::none();
  EXPECT_TRUE(b.add_objects(objects).ok());
  EXPECT_EQ(b.graph().object_count(), 4u);
}

TEST(GraphBuilder, UniqueAddressesLeaveRepeatsOut) {
  GraphBuilder b = three_objects(GraphBuilder::Addresses::kUnique);
  std::vector<ObjectFields> objects(2);
  objects[0].address = 0x1028;  // object 1's
  objects[1].address = 0x2000;
  for (ObjectFields& o : objects) o.class_id = ClassId(1);
  std::vector<uint32_t> repeats;
  ASSERT_TRUE(b.add_objects(objects, &repeats).ok());
  EXPECT_EQ(repeats, std::vector<uint32_t>{0});
  EXPECT_EQ(b.graph().find(0x2000), ObjectId(3));
  EXPECT_EQ(b.graph().class_of(ObjectId(1)), ClassId(0));
}

TEST(GraphBuilder, StacksResolveByIdTheFirstDefinitionWinning) {
  GraphBuilder b({}, GraphBuilder::Addresses::kAsGiven);
  b.add_class({0, ObjectId::none(), b.intern("C")});
  SiteId app = b.add_site({b.intern("app.rb"), 1, StringId::none()}).value();
  SiteId lib = b.add_site({b.intern("<internal:kernel>"), 2, StringId::none()}).value();
  std::vector<ObjectFields> objects(3);
  for (ObjectFields& o : objects) o.class_id = ClassId(0);
  objects[0].stack = 7;
  objects[1].stack = 9;  // defined by no stack: none
  ASSERT_TRUE(b.add_objects(objects).ok());
  ASSERT_TRUE(b.add_stack(7, std::vector<SiteId>{lib, app}).ok());
  ASSERT_TRUE(b.add_stack(7, std::vector<SiteId>{lib}).ok());
  auto built = b.build();
  ASSERT_TRUE(built.ok()) << built.error().message;
  const HeapGraph& g = built.value();
  ASSERT_EQ(g.stack(ObjectId(0)).size(), 2u);
  EXPECT_EQ(g.app_site(ObjectId(0)), app);
  EXPECT_TRUE(g.stack(ObjectId(1)).empty());
  EXPECT_EQ(g.stack_number(ObjectId(1)), 0u);
}

// Three objects as whole columns, of class 1 (the last at site 0) with stacks 0, 7, 0.
ObjectColumns three_columns() {
  ObjectColumns c;
  for (uint32_t i = 0; i < 3; ++i) {
    c.address.push_back(0x1000 + 40 * i);
    c.type.push_back(ObjectType::kObject);
    c.class_of.push_back(ClassId(1));
    c.memsize.push_back(40);
    c.site.push_back(i == 2 ? SiteId(0) : SiteId::none());
    c.generation.push_back(i);
    c.stack.push_back(i == 1 ? 7 : 0);
  }
  return c;
}

// A builder with two classes and a site, as three_objects has, and no objects.
GraphBuilder tables_only() {
  GraphBuilder b;
  b.add_class({0x100, ObjectId::none(), b.intern("Foo")});
  b.add_class({0x200, ObjectId::none(), b.intern("Bar")});
  EXPECT_TRUE(b.add_site({b.intern("app.rb"), 3, StringId::none()}).ok());
  return b;
}

TEST(GraphBuilder, TakesObjectColumnsWhole) {
  GraphBuilder b = tables_only();
  ASSERT_TRUE(b.add_object_columns(three_columns()).ok());
  ASSERT_TRUE(b.add_weak_holder(ObjectId(1)).ok());
  ASSERT_TRUE(b.add_references(block(0, {0, 1}, {2})).ok());
  auto built = b.build();
  ASSERT_TRUE(built.ok()) << built.error().message;
  const HeapGraph& g = built.value();
  EXPECT_EQ(g.object_count(), 3u);
  EXPECT_EQ(g.address(ObjectId(2)), 0x1050u);
  EXPECT_EQ(g.class_name(g.class_of(ObjectId(1))), "Bar");
  EXPECT_EQ(g.site(ObjectId(2)), SiteId(0));
  EXPECT_EQ(g.generation(ObjectId(1)), 1u);
  EXPECT_EQ(g.references(ObjectId(0))[0], ObjectId(2));
  EXPECT_EQ(g.find(0x1028), ObjectId(1));
  EXPECT_TRUE(g.holds_weakly(ObjectId(1)));
  EXPECT_FALSE(g.added_class_edge(ObjectId(0)));
}

TEST(GraphBuilder, RefusesObjectColumnsThatWouldNotHold) {
  auto refused = [](void (*damage)(ObjectColumns&)) {
    GraphBuilder b = tables_only();
    ObjectColumns c = three_columns();
    damage(c);
    const bool added = b.add_object_columns(std::move(c)).ok();
    return !added && b.graph().object_count() == 0;
  };
  EXPECT_TRUE(refused([](ObjectColumns& c) { c.class_of.set(1, ClassId(2)); }));
  EXPECT_TRUE(refused([](ObjectColumns& c) { c.class_of.set(0, ClassId::none()); }));
  EXPECT_TRUE(refused([](ObjectColumns& c) { c.site.set(2, SiteId(1)); }));
  EXPECT_TRUE(refused([](ObjectColumns& c) { c.type[0] = static_cast<ObjectType>(200); }));
  EXPECT_TRUE(refused([](ObjectColumns& c) { c.type.pop_back(); }));
  EXPECT_TRUE(refused([](ObjectColumns& c) { c.memsize.push_back(8); }));
  EXPECT_TRUE(refused([](ObjectColumns& c) { c.generation.resize(2); }));
  EXPECT_TRUE(refused([](ObjectColumns& c) { c.stack.push_back(1); }));
  EXPECT_FALSE(refused([](ObjectColumns& c) { c.stack.clear(); }));  // no stacks: fine

  GraphBuilder has_objects = three_objects();  // columns come first, or not at all
  EXPECT_FALSE(has_objects.add_object_columns(three_columns()).ok());
  GraphBuilder unique({}, GraphBuilder::Addresses::kUnique);
  unique.add_class({0x100, ObjectId::none(), unique.intern("Foo")});
  unique.add_class({0x200, ObjectId::none(), unique.intern("Bar")});
  ASSERT_TRUE(unique.add_site({unique.intern("app.rb"), 3, StringId::none()}).ok());
  EXPECT_FALSE(unique.add_object_columns(three_columns()).ok());
}

}  // namespace
}  // namespace heapq
