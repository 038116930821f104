# EF_SANITIZE=address,undefined builds everything with those sanitizers.
set(EF_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list (e.g. address,undefined)")
if(EF_SANITIZE)
  add_compile_options(-fsanitize=${EF_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${EF_SANITIZE})
endif()
