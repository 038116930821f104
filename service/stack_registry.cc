// GetStack (stack.h): the process-wide stack instances.

#include "service/edgefleet_stack.h"
#include "service/pytorch_mobile_stack.h"
#include "service/stack.h"

namespace edgefleet {
namespace service {

Stack* GetStack(v1::Stack id) {
  static EdgefleetStack* edgefleet = new EdgefleetStack();
  static PytorchMobileStack* pytorch_mobile = new PytorchMobileStack();
  switch (id) {
    case v1::STACK_EDGEFLEET:
      return edgefleet;
    case v1::STACK_PYTORCH_MOBILE:
      return pytorch_mobile;
    default:
      return nullptr;
  }
}

}  // namespace service
}  // namespace edgefleet
