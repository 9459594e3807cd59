# Writes OUT, a C++ file holding every template of DIR as a string, for
# builtinTemplates(). Run at configure time; the templates are configure
# dependencies, so editing one re-runs it.
file(GLOB CHOREO_TEMPLATE_FILES ${DIR}/*.choreo)
list(SORT CHOREO_TEMPLATE_FILES)
set(BODY "")
foreach(F ${CHOREO_TEMPLATE_FILES})
  get_filename_component(NAME ${F} NAME_WE)
  file(READ ${F} TEXT)
  string(APPEND BODY "    {\"${NAME}\", R\"CHOREO(${TEXT})CHOREO\"},\n")
endforeach()
file(WRITE ${OUT}.tmp "// Generated from template/builtin/*.choreo; do not edit.
#include \"template/Template.h\"

llvm::ArrayRef<std::pair<const char *, const char *>>
choreo::builtinTemplates() {
  static const std::pair<const char *, const char *> Templates[] = {
${BODY}  };
  return Templates;
}
")
configure_file(${OUT}.tmp ${OUT} COPYONLY)
