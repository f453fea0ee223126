package io.watukuy.spring.boot;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Refuses a watukuy write operation whose request has a field the operation does not take
 * (docs/spring-boot.md, "Endpoint"). Boot binds the body's fields to the operation's parameters by
 * name and drops the rest, so a misspelt {@code {"partiton": "eu"}} would pause or discard every
 * partition of the poller; here it is a 400 naming the field, before the operation runs. On Spring
 * MVC, {@link WatukuyEndpointBody} checks the body first and hands its refusal on here.
 */
final class WatukuyEndpointFields implements OperationInvokerAdvisor {
  /**
   * The key under which a refused body's reason reaches this advisor from {@link
   * WatukuyEndpointBody}, which answers 400 with it. A client that sends this field itself only
   * gets its own 400.
   */
  static final String REFUSED = "watukuy.refused";

  /**
   * The message for a field the operation does not take.
   *
   * @param name the field
   * @return a sentence naming it and the fields there are
   */
  static String unknownField(String name) {
    return "unknown field '"
        + name
        + "'; the fields are "
        + String.join(" and ", WatukuyEndpoint.BODY_FIELDS);
  }

  @Override
  public OperationInvoker apply(
      EndpointId endpointId,
      OperationType operationType,
      OperationParameters parameters,
      OperationInvoker invoker) {
    if (!endpointId.equals(EndpointId.of(WatukuyEndpoint.ID))
        || operationType != OperationType.WRITE) return invoker;
    List<String> taken = new ArrayList<>();
    for (OperationParameter p : parameters) taken.add(p.getName());
    return context -> {
      Object refused = context.getArguments().get(REFUSED);
      if (refused != null) return WatukuyEndpoint.badRequest(refused.toString());
      for (String name : context.getArguments().keySet())
        if (!taken.contains(name)) return WatukuyEndpoint.badRequest(unknownField(name));
      return invoker.invoke(context);
    };
  }
}
