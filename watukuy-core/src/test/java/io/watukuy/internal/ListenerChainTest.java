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

/**
 * The chain forwards every callback to each of its listeners in order, and one that throws neither
 * stops the ones after it nor reaches the caller.
 */
class ListenerChainTest {

  @Test
  void overridesEveryCallbackOfTheListener() throws NoSuchMethodException {
    // A callback added to WatukuyListener and not overridden here would reach no listener.
    for (Method m : WatukuyListener.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) continue;
      Method own = ListenerChain.class.getMethod(m.getName(), m.getParameterTypes());
      assertThat(own.getDeclaringClass()).as(m.getName()).isEqualTo(ListenerChain.class);
    }
  }

  @Test
  void everyCallbackReachesEachListenerInOrderPastOneThatThrows() throws Exception {
    List<String> called = new ArrayList<>();
    WatukuyListener chain =
        ListenerChain.of(
            List.of(recording("first", called, true), recording("second", called, false)));

    List<String> expected = new ArrayList<>();
    for (Method m : WatukuyListener.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) continue;
      Object[] args = new Object[m.getParameterCount()];
      for (int i = 0; i < args.length; i++) {
        if (m.getParameterTypes()[i] == long.class) args[i] = 0L;
        if (m.getParameterTypes()[i] == int.class) args[i] = 0;
      }
      assertThatNoException().as(m.getName()).isThrownBy(() -> invoke(m, chain, args));
      expected.add("first " + m.getName());
      expected.add("second " + m.getName());
    }

    assertThat(called).containsExactlyElementsOf(expected);
  }

  private static WatukuyListener recording(String name, List<String> called, boolean throwing) {
    return (WatukuyListener)
        Proxy.newProxyInstance(
            WatukuyListener.class.getClassLoader(),
            new Class<?>[] {WatukuyListener.class},
            (proxy, method, args) -> {
              if (method.getDeclaringClass() == Object.class) return method.invoke(name, args);
              called.add(name + " " + method.getName());
              if (throwing) throw new IllegalStateException(method.getName() + " failed");
              return null;
            });
  }

  private static void invoke(Method m, Object target, Object[] args) throws Throwable {
    try {
      m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
