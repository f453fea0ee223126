package io.watukuy.spring.boot;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * partition of the poller; here it is a 400 naming the field, before the operation runs. A field
 * sent as JSON {@code null} is refused too, since the operation reads a null as "all". On Spring
 * MVC, {@link WatukuyEndpointBody} checks the body first and hands its refusal on here.
 */
final class WatukuyEndpointFields implements OperationInvokerAdvisor {
  /**
   * The key under which a refused body's reason reaches this advisor from {@link
   * WatukuyEndpointBody}, which answers 400 with it. A client that sends this field itself only
   * gets its own 400.
   */
  static final String REFUSED = "watukuy.refused";

  /** What {@code ids} must be, the start of the message refusing any other shape. */
  static final String IDS_SHAPE =
      "ids must be an array of strings such as [\"12\"] or one string such as \"12\"";

  /**
   * The message for a field sent as JSON {@code null}. An absent field means "every partition" or
   * "every parked event"; a null one is refused, so that a client's unset variable never widens an
   * operation to all.
   *
   * @param name the field
   * @return a sentence naming it and saying to leave it out instead
   */
  static String nullField(String name) {
    return name
        + " is null; leave the field out to mean "
        + (name.equals("ids") ? "every parked event" : "every partition")
        + ", or give a value";
  }

  /**
   * The message for a query parameter: the operation takes its fields from the JSON body only.
   *
   * @param name the parameter
   * @return a sentence naming it
   */
  static String queryParameter(String name) {
    return "query parameter '"
        + name
        + "' is not taken; send "
        + String.join(" and ", WatukuyEndpoint.BODY_FIELDS)
        + " in the JSON body";
  }

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
      for (Map.Entry<String, Object> e : context.getArguments().entrySet()) {
        if (!taken.contains(e.getKey()))
          return WatukuyEndpoint.badRequest(unknownField(e.getKey()));
        // Boot passes a JSON null on as a null argument, which the operation would read as "all".
        if (e.getValue() == null && WatukuyEndpoint.BODY_FIELDS.contains(e.getKey()))
          return WatukuyEndpoint.badRequest(nullField(e.getKey()));
      }
      return invoker.invoke(context);
    };
  }
}
