package dev.postbox.recipes.spring;

import dev.postbox.Dispatcher;
import dev.postbox.Outbox;
import dev.postbox.Transport;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/**
 * The Spring recipe's wiring (no Spring Boot): a {@link DataSourceTransactionManager} for
 * {@code @Transactional}, a {@link JdbcTemplate}, the {@link Outbox}, the {@link Dispatcher} with
 * its {@link DispatcherLifecycle}, and the {@link SpringOrderService}. The application provides the
 * {@link DataSource} and the {@link Transport} beans; the property {@code postbox.poll-interval}
 * (ISO-8601, default {@code PT1S}) sets the dispatcher's poll interval.
 */
@Configuration
@EnableTransactionManagement
public class SpringOutboxConfig {
  @Bean
  PlatformTransactionManager transactionManager(DataSource dataSource) {
    return new DataSourceTransactionManager(dataSource);
  }

  @Bean
  JdbcTemplate jdbcTemplate(DataSource dataSource) {
    return new JdbcTemplate(dataSource);
  }

  @Bean
  Outbox outbox() {
    return Outbox.builder().build();
  }

  // not started here: DispatcherLifecycle starts it once the context is refreshed
  @Bean
  Dispatcher dispatcher(
      DataSource dataSource, Outbox outbox, Transport transport, Environment environment) {
    return Dispatcher.builder(dataSource)
        .outbox(outbox, transport)
        .pollInterval(Duration.parse(environment.getProperty("postbox.poll-interval", "PT1S")))
        .build();
  }

  @Bean
  DispatcherLifecycle dispatcherLifecycle(Dispatcher dispatcher) {
    return new DispatcherLifecycle(dispatcher);
  }

  @Bean
  SpringOrderService orderService(
      JdbcTemplate jdbc, DataSource dataSource, Outbox outbox, Dispatcher dispatcher) {
    return new SpringOrderService(jdbc, dataSource, outbox, dispatcher);
  }
}
