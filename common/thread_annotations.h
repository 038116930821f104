// Clang's thread-safety annotations (-Wthread-safety), as macros that are
// empty under other compilers. common/mutex.h uses them on Mutex, MutexLock
// and CondVar; code that holds a Mutex marks what it guards:
//   Mutex mu_;
//   std::map<...> cache_ EF_GUARDED_BY(mu_);  // read and written under mu_
//   void AddLocked(...) EF_REQUIRES(mu_);      // the caller holds mu_
//   void Add(...) EF_EXCLUDES(mu_);            // takes mu_ itself
// The `thread-safety` preset (tools/checks/thread_safety.sh, .ci/run)
// builds service/ and loadtest/ with clang and -Werror=thread-safety.
// Reference: https://clang.llvm.org/docs/ThreadSafetyAnalysis.html

#ifndef EDGEFLEET_COMMON_THREAD_ANNOTATIONS_H_
#define EDGEFLEET_COMMON_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define EF_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define EF_THREAD_ANNOTATION(x)
#endif

#define EF_CAPABILITY(name) EF_THREAD_ANNOTATION(capability(name))
#define EF_SCOPED_CAPABILITY EF_THREAD_ANNOTATION(scoped_lockable)
#define EF_GUARDED_BY(mu) EF_THREAD_ANNOTATION(guarded_by(mu))
#define EF_PT_GUARDED_BY(mu) EF_THREAD_ANNOTATION(pt_guarded_by(mu))
#define EF_REQUIRES(...) EF_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EF_EXCLUDES(...) EF_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define EF_ACQUIRE(...) EF_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define EF_RELEASE(...) EF_THREAD_ANNOTATION(release_capability(__VA_ARGS__))

#endif  // EDGEFLEET_COMMON_THREAD_ANNOTATIONS_H_
