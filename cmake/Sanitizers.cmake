# EF_SANITIZE=address,undefined builds everything with those sanitizers.
# The vptr check of UBSan needs RTTI, which runtime code is built without, so
# it is turned off (every other UBSan check stays on and is fatal).
set(EF_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list (e.g. address,undefined)")
if(EF_SANITIZE)
  add_compile_options(-fsanitize=${EF_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  if(EF_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize=vptr)
  endif()
  add_link_options(-fsanitize=${EF_SANITIZE})
endif()
