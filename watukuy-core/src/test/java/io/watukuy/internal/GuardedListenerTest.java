package io.watukuy.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

import io.watukuy.WatukuyListener;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The guard forwards every callback to the user's listener and drops what it throws. */
class GuardedListenerTest {

  @Test
  void overridesEveryCallbackOfTheListener() throws NoSuchMethodException {
    // A callback added to WatukuyListener and not overridden here would silently do nothing.
    for (Method m : WatukuyListener.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) continue;
      Method own = GuardedListener.class.getMethod(m.getName(), m.getParameterTypes());
      assertThat(own.getDeclaringClass()).as(m.getName()).isEqualTo(GuardedListener.class);
    }
  }

  @Test
  void forwardsEveryCallbackAndDropsWhatItThrows() throws Exception {
    List<String> called = new ArrayList<>();
    WatukuyListener throwing =
        (WatukuyListener)
            Proxy.newProxyInstance(
                WatukuyListener.class.getClassLoader(),
                new Class<?>[] {WatukuyListener.class},
                (proxy, method, args) -> {
                  called.add(method.getName());
                  throw new IllegalStateException(method.getName() + " failed");
                });
    WatukuyListener guarded = GuardedListener.of(throwing);

    List<String> expected = new ArrayList<>();
    for (Method m : WatukuyListener.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) continue;
      Object[] args = new Object[m.getParameterCount()];
      for (int i = 0; i < args.length; i++) {
        if (m.getParameterTypes()[i] == long.class) args[i] = 0L;
        if (m.getParameterTypes()[i] == int.class) args[i] = 0;
      }
      assertThatNoException().as(m.getName()).isThrownBy(() -> invoke(m, guarded, args));
      expected.add(m.getName());
    }

    assertThat(called).containsExactlyElementsOf(expected);
  }

  @Test
  void leavesTheNoOpListenerAsItIsAndGuardsOnce() {
    assertThat(GuardedListener.of(WatukuyListener.NONE)).isSameAs(WatukuyListener.NONE);
    WatukuyListener guarded = GuardedListener.of(new WatukuyListener() {});
    assertThat(GuardedListener.of(guarded)).isSameAs(guarded);
  }

  private static void invoke(Method m, Object target, Object[] args) throws Throwable {
    try {
      m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
